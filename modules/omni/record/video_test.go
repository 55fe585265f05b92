package record

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
)

func videoRecord(e2el time.Duration, v Video) *Record {
	return &Record{Endpoint: EndpointVideos, Status: 200, Start: time.Unix(1_760_000_000, 0).UTC(), End: e2el, Video: v}
}

func TestVideoMeasures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		r              *Record
		rtf            float64 // 0: none
		window         time.Duration
		hasWindow      bool
		generationMS   float64 // 0: none
		imageGenerated bool
	}{
		// The server's 4 s over 2 s of video, whatever the poll overshoot in E2EL (the
		// reference's test_video_rtf_prefers_generation_time_over_poll_latency).
		{"server time, short polls", videoRecord(4200*ms, Video{Status: "completed", Seconds: 2, GenerationMS: 4000, Pending: 3900 * ms}),
			2, 300 * ms, true, 4000, false},
		{"server time, long polls", videoRecord(8*time.Second, Video{Status: "completed", Seconds: 2, GenerationMS: 4000, Pending: 2 * time.Second}),
			2, 6 * time.Second, true, 4000, false},
		{"no server time: E2EL", videoRecord(6*time.Second, Video{Status: "completed", Seconds: 2}), 3, 6 * time.Second, true, 0, false},
		{"no duration: no RTF", videoRecord(6*time.Second, Video{Status: "completed", GenerationMS: 10}), 0, 6 * time.Second, true, 10, false},
		{"unfinished: no window", videoRecord(time.Second, Video{Status: "in_progress"}), 0, 0, false, 0, false},
	}
	for _, tt := range tests {
		if rtf, ok := VideoRTF(tt.r); ok != (tt.rtf > 0) || rtf != tt.rtf {
			t.Errorf("%s: rtf %v %v, want %v", tt.name, rtf, ok, tt.rtf)
		}
		if w, ok := VideoPollWindow(tt.r); ok != tt.hasWindow || w != tt.window {
			t.Errorf("%s: window %v %v, want %v", tt.name, w, ok, tt.window)
		}
		var gen []float64
		MeasureNamed("video_generation").Each(tt.r, func(v float64) { gen = append(gen, v) })
		if (len(gen) == 1) != (tt.generationMS > 0) || len(gen) == 1 && gen[0] != tt.generationMS {
			t.Errorf("%s: video_generation %v, want %v", tt.name, gen, tt.generationMS)
		}
	}
	// A video job's stage_durations time the video, not an image.
	r := videoRecord(time.Second, Video{Status: "completed"})
	r.Images.StageDurations = chunk.Durations{{Key: "dit_gen_ms", Value: 900}}
	if v, ok := ImageGenerationMS(r); ok {
		t.Errorf("a video counted as an image generation of %v ms", v)
	}
	// Other endpoints have no video measures, whatever their fields say.
	chat := &Record{Endpoint: EndpointChat, End: time.Second, Video: Video{Seconds: 1, Status: "completed"}}
	if _, ok := VideoRTF(chat); ok {
		t.Error("a chat request has a video RTF")
	}
}

func TestVideoRecordRoundTrip(t *testing.T) {
	t.Parallel()
	in := videoRecord(4200*ms, Video{JobID: "video_gen_1", Status: "completed", Polls: 3, PollInterval: 2 * time.Second,
		Pending: 3900 * ms, Content: 4300 * ms, Bytes: 1 << 20, Seconds: 2, Frames: 48, FPS: 24, Source: VideoFromServer, GenerationMS: 4000})
	in.RequestID = "video_gen_1"
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"video":{"job_id":"video_gen_1","status":"completed","polls":3,"poll_interval_ms":2000,"pending_ms":3900,"content_ms":4300,`,
		`"source":"server","generation_ms":4000}`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("no %s in %s", want, b)
		}
	}
	out, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	out.Start = in.Start
	if !reflect.DeepEqual(out, in) {
		t.Errorf("round trip:\n in  %+v\n out %+v", in, out)
	}
	// A video of no download keeps content_ms null; a bad count is refused.
	in.Video.Content = 0
	b, _ = json.Marshal(in)
	if !strings.Contains(string(b), `"content_ms":null`) {
		t.Errorf("content_ms not null: %s", b)
	}
	bad := strings.Replace(string(b), `"polls":3`, `"polls":-3`, 1)
	var fe *FieldError
	if _, err := Decode([]byte(bad)); !errors.As(err, &fe) || fe.Field != "video" {
		t.Errorf("negative polls: %v", err)
	}
}
