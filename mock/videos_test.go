package mock

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"
)

type videoObject struct {
	ID             string             `json:"id"`
	Status         string             `json:"status"`
	Progress       int                `json:"progress"`
	NumFrames      int                `json:"num_frames"`
	FPS            float64            `json:"fps"`
	DurationS      float64            `json:"duration_s"`
	InferenceTimeS float64            `json:"inference_time_s"`
	StageDurations map[string]float64 `json:"stage_durations"`
	Metrics        *struct {
		StageMetrics map[string]struct {
			OutputUnitType  string  `json:"output_unit_type"`
			FinalOutputType string  `json:"final_output_type"`
			StageGenTimeMs  float64 `json:"stage_gen_time_ms"`
		} `json:"stage_metrics"`
	} `json:"metrics"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// createVideo posts a JSON create and decodes the job.
func createVideo(t *testing.T, u, body string, header ...string) (int, videoObject) {
	t.Helper()
	resp := post(t, u+"/v1/videos", body, header...)
	var v videoObject
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("create: %v: %s", err, b)
		}
	}
	return resp.StatusCode, v
}

// pollVideo polls until the job ends or polls run out, returning the last answer and
// how many polls it took.
func pollVideo(t *testing.T, u, id string, polls int) (videoObject, int) {
	t.Helper()
	var v videoObject
	for i := 1; i <= polls; i++ {
		resp, err := http.Get(u + "/v1/videos/" + id)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("poll %d: %d %s", i, resp.StatusCode, b)
		}
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("poll %d: %v: %s", i, err, b)
		}
		if v.Status == "completed" || v.Status == "failed" {
			return v, i
		}
		time.Sleep(5 * time.Millisecond)
	}
	return v, polls
}

func TestVideoJobCompletesWithItsClipAndStageMetrics(t *testing.T) {
	t.Parallel()
	_, u := startServer(t)
	code, job := createVideo(t, u, `{"prompt":"a lake at sunrise","num_frames":"48","fps":"24","size":"320x240","return_stage_metrics":true}`)
	if code != http.StatusOK || job.ID == "" || job.Status != "queued" && job.Status != "in_progress" {
		t.Fatalf("create = %d %+v", code, job)
	}
	v, _ := pollVideo(t, u, job.ID, 2000)
	if v.Status != "completed" || v.NumFrames != 48 || v.FPS != 24 || v.DurationS != 2 || v.Progress != 100 {
		t.Fatalf("completed job = %+v", v)
	}
	if v.StageDurations["dit_gen_ms"] <= 0 || v.InferenceTimeS <= 0 {
		t.Errorf("timings: %+v", v)
	}
	st, ok := v.Metrics.StageMetrics["0"]
	if !ok || st.OutputUnitType != "video" || st.FinalOutputType != "video" || st.StageGenTimeMs <= 0 {
		t.Errorf("stage metrics = %+v", v.Metrics)
	}
	resp, err := http.Get(u + "/v1/videos/" + job.ID + "/content")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	want := len(mp4Head(48, 24, 0)) + 48*(320*240/100)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "video/mp4" || len(b) != want ||
		!bytes.Equal(b[4:8], []byte("ftyp")) || resp.Header.Get("Content-Length") != strconv.Itoa(want) {
		t.Errorf("content: %d %s, %d bytes, want %d", resp.StatusCode, resp.Header.Get("Content-Type"), len(b), want)
	}
}

func TestVideoJobFaults(t *testing.T) {
	t.Parallel()
	_, u := startServer(t)
	t.Run("error-event fails the job with its reason", func(t *testing.T) {
		t.Parallel()
		_, job := createVideo(t, u, `{"prompt":"x"}`, FaultHeader, "error-event")
		v, _ := pollVideo(t, u, job.ID, 2000)
		if v.Status != "failed" || v.Error == nil || v.Error.Code != 500 || v.Error.Message == "" {
			t.Fatalf("job = %+v", v)
		}
	})
	t.Run("a status fault with after=0 refuses the create", func(t *testing.T) {
		t.Parallel()
		if code, _ := createVideo(t, u, `{"prompt":"x"}`, FaultHeader, "http429,after=0"); code != http.StatusTooManyRequests {
			t.Fatalf("create = %d", code)
		}
	})
	t.Run("a status fault answers the after-th poll", func(t *testing.T) {
		t.Parallel()
		_, job := createVideo(t, u, `{"prompt":"x"}`, FaultHeader, "http503,after=2")
		codes := []int{}
		for range 3 {
			resp, err := http.Get(u + "/v1/videos/" + job.ID)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			codes = append(codes, resp.StatusCode)
		}
		if codes[0] != 200 || codes[1] != 503 || codes[2] != 200 {
			t.Fatalf("poll statuses = %v", codes)
		}
	})
	t.Run("a stall holds the job unfinished", func(t *testing.T) {
		t.Parallel()
		_, job := createVideo(t, u, `{"prompt":"x"}`, FaultHeader, "stall,delay=1h")
		// Its plan ends in well under a second at speed 10: still unfinished after it.
		time.Sleep(100 * time.Millisecond)
		if v, _ := pollVideo(t, u, job.ID, 1); v.Status == "completed" || v.Status == "failed" {
			t.Fatalf("job = %+v", v)
		}
	})
	t.Run("truncated content is cut short of its Content-Length", func(t *testing.T) {
		t.Parallel()
		_, job := createVideo(t, u, `{"prompt":"x"}`, FaultHeader, "truncated-wav")
		pollVideo(t, u, job.ID, 2000)
		resp, err := http.Get(u + "/v1/videos/" + job.ID + "/content")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if _, err := io.ReadAll(resp.Body); err == nil {
			t.Fatal("content read whole")
		}
	})
}

func TestVideoCreateRejections(t *testing.T) {
	t.Parallel()
	_, u := startServer(t)
	for _, tt := range []struct{ body string }{
		{`{}`},
		{`{"prompt":"x","model":"nope"}`},
		{`{"prompt":"x","size":"big"}`},
		{`{"prompt":"x","seconds":"0"}`},
		{`{"prompt":"x","num_inference_steps":"500"}`},
	} {
		if code, _ := createVideo(t, u, tt.body); code != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", tt.body, code)
		}
	}
	resp, err := http.Get(u + "/v1/videos/video_gen_none")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown job: %d", resp.StatusCode)
	}
}
