package record

import (
	"strings"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
)

// Video is what an async video job (/v1/videos) reported and delivered. The job's
// completion is seen by a status poll: the record's End is that poll's answer, and the
// job completed after Pending, the send of the last exchange (the create, at 0, or a poll)
// that found it unfinished. So
// End − Pending (the poll window, at most the poll interval plus two poll round trips)
// bounds how far E2EL overshoots the true completion.
type Video struct {
	JobID        string
	Status       string // the last status the job reported
	Polls        int    // status polls sent
	PollInterval time.Duration
	Pending      time.Duration // the last exchange that found the job unfinished was sent (0: the create, or none)
	Content      time.Duration // the content download ended; 0 when it was not asked for
	Bytes        int64         // content bytes received
	Seconds      float64       // video duration
	Frames       int64
	FPS          float64
	// Source says where Seconds came from: VideoFromServer (the job), VideoFromContent
	// (the downloaded MP4's header), VideoFromRequest (the body's seconds, num_frames,
	// fps, as the reference falls back to), or "" when none said.
	Source string
	// GenerationMS is the server's generation time: the largest *_gen_ms of the job's
	// stage_durations, else its inference_time_s; 0 when it reported neither.
	GenerationMS float64
}

// Where a video's duration and frames came from.
const (
	VideoFromServer  = "server"
	VideoFromContent = "content"
	VideoFromRequest = "request"
)

// Video returns the record's video, for the reader of a video job to fill.
func (b *Builder) Video() *Video { return &b.r.Video }

// LargestGenMS is the server's stage_durations generation time: the largest *_gen_ms,
// as for images and a video job's Video.GenerationMS; 0 when none.
func LargestGenMS(durations chunk.Durations) float64 {
	gen := 0.0
	for _, d := range durations {
		if strings.HasSuffix(d.Key, "_gen_ms") {
			gen = max(gen, d.Value)
		}
	}
	return gen
}

// VideoRTF is the generation time over the video's duration: the server's generation
// time when it reported one, else E2EL (which carries the poll overshoot, up to one poll
// window), as the reference computes it.
func VideoRTF(r *Record) (float64, bool) {
	v := &r.Video
	if r.Endpoint != EndpointVideos || v.Seconds <= 0 {
		return 0, false
	}
	gen := v.GenerationMS / 1000
	if gen <= 0 {
		gen = E2EL(r).Seconds()
	}
	return gen / v.Seconds, gen > 0
}

// VideoPollWindow is End − Pending: how much later than the job's true completion the
// poll that saw it may have answered.
func VideoPollWindow(r *Record) (time.Duration, bool) {
	if r.Endpoint != EndpointVideos || r.Video.Status != chunk.VideoCompleted {
		return 0, false
	}
	return r.End - r.Video.Pending, true
}
