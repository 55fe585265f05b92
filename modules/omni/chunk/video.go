package chunk

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Video job statuses (OpenAI's and vLLM-Omni's VideoGenerationStatus).
const (
	VideoQueued     = "queued"
	VideoInProgress = "in_progress"
	VideoCompleted  = "completed"
	VideoFailed     = "failed"
)

// VideoJob is the job object of /v1/videos, as the create answer and every status poll
// send it: OpenAI's video object with vLLM-Omni's additions (inference_time_s,
// stage_durations, peak_memory_mb and, where the server counted them, duration_s,
// num_frames and fps). Numbers a server could send as strings (seconds) are read either
// way; a number that is not finite and non-negative reads as absent.
type VideoJob struct {
	ID       string
	Status   string
	Progress float64
	Error    *Error // set on a failed job: {code, message}
	// Seconds is the requested clip length the job echoes ("4"); DurationS, Frames and FPS
	// are what the server reports it generated. 0 when absent.
	Seconds, DurationS, FPS float64
	Frames                  int64
	InferenceTimeS          float64
	StageDurations          Durations
	PeakMemoryMB            float64
	Metrics                 *Metrics
}

// DecodeVideoJob reads a create or status answer. A body that is not a JSON object, or
// whose id or status is not a string, is ErrMalformed.
func DecodeVideoJob(b []byte) (VideoJob, error) {
	var raw struct {
		ID             json.RawMessage `json:"id"`
		Status         json.RawMessage `json:"status"`
		Progress       json.RawMessage `json:"progress"`
		Error          *Error          `json:"error"`
		Seconds        json.RawMessage `json:"seconds"`
		DurationS      json.RawMessage `json:"duration_s"`
		NumFrames      json.RawMessage `json:"num_frames"`
		VideoFrames    json.RawMessage `json:"video_frames"`
		Frames         json.RawMessage `json:"frames"`
		FPS            json.RawMessage `json:"fps"`
		InferenceTimeS json.RawMessage `json:"inference_time_s"`
		StageDurations Durations       `json:"stage_durations"`
		PeakMemoryMB   json.RawMessage `json:"peak_memory_mb"`
		Metrics        *Metrics        `json:"metrics"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return VideoJob{}, malformed(err)
	}
	id, okID := text(raw.ID)
	status, okStatus := text(raw.Status)
	if !okID || !okStatus {
		return VideoJob{}, malformed(fmt.Errorf("id and status must be strings"))
	}
	j := VideoJob{ID: id, Status: status, Error: raw.Error, StageDurations: raw.StageDurations, Metrics: raw.Metrics,
		Progress: jobNumber(raw.Progress), Seconds: jobNumber(raw.Seconds), DurationS: jobNumber(raw.DurationS),
		FPS: jobNumber(raw.FPS), InferenceTimeS: jobNumber(raw.InferenceTimeS), PeakMemoryMB: jobNumber(raw.PeakMemoryMB)}
	// The reference reads the first of these keys a server set; a list counts its frames.
	for _, f := range []json.RawMessage{raw.NumFrames, raw.VideoFrames, raw.Frames} {
		if n := frames(f); n > 0 {
			j.Frames = n
			break
		}
	}
	return j, nil
}

// text is a JSON string, or absent (null, missing) as "".
func text(b json.RawMessage) (string, bool) {
	if len(b) == 0 || string(b) == "null" {
		return "", true
	}
	var s string
	return s, json.Unmarshal(b, &s) == nil
}

// maxVideoNumber bounds what a job may claim (30,000 years in ms): sums of larger
// numbers would reach +Inf.
const maxVideoNumber = 1e15

// jobNumber is a JSON number or numeric string; 0 when absent, not a number, negative or
// past maxVideoNumber.
func jobNumber(b json.RawMessage) float64 {
	if len(b) == 0 {
		return 0
	}
	s := string(b)
	if b[0] == '"' {
		if json.Unmarshal(b, &s) != nil {
			return 0
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || v < 0 || v > maxVideoNumber {
		return 0
	}
	return v
}

// frames is a frame count: a number, or a list of frames (its length).
func frames(b json.RawMessage) int64 {
	if len(b) > 0 && b[0] == '[' {
		var list []json.RawMessage
		if json.Unmarshal(b, &list) == nil {
			return int64(len(list))
		}
		return 0
	}
	return int64(math.Round(jobNumber(b)))
}
