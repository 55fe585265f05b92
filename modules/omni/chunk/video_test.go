package chunk

import (
	"errors"
	"math"
	"testing"
)

func TestDecodeVideoJob(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want VideoJob
		err  bool
	}{
		{"create answer", `{"id":"video_gen_1","object":"video","status":"queued","progress":0,"seconds":"4","created_at":1}`,
			VideoJob{ID: "video_gen_1", Status: VideoQueued, Seconds: 4}, false},
		{"completed with what the server counted",
			`{"id":"v","status":"completed","progress":100,"duration_s":2.0,"num_frames":48,"fps":24,"inference_time_s":4.5,"stage_durations":{"dit_gen_ms":4000},"peak_memory_mb":812.5}`,
			VideoJob{ID: "v", Status: VideoCompleted, Progress: 100, DurationS: 2, Frames: 48, FPS: 24, InferenceTimeS: 4.5,
				StageDurations: Durations{{Key: "dit_gen_ms", Value: 4000}}, PeakMemoryMB: 812.5}, false},
		{"frames as a list, numbers as strings", `{"id":"v","status":"completed","frames":[1,2,3],"fps":"16","seconds":8}`,
			VideoJob{ID: "v", Status: VideoCompleted, Frames: 3, FPS: 16, Seconds: 8}, false},
		{"video_frames when num_frames is null", `{"id":"v","status":"completed","num_frames":null,"video_frames":81}`,
			VideoJob{ID: "v", Status: VideoCompleted, Frames: 81}, false},
		{"failed with its error", `{"id":"v","status":"failed","error":{"code":500,"message":"CUDA out of memory"}}`,
			VideoJob{ID: "v", Status: VideoFailed, Error: &Error{Code: "500", Message: "CUDA out of memory"}}, false},
		{"impossible numbers read as absent", `{"id":"v","status":"in_progress","progress":-5,"duration_s":1e300,"fps":"NaN","inference_time_s":"x"}`,
			VideoJob{ID: "v", Status: VideoInProgress}, false},
		{"null id and status", `{"id":null,"status":null}`, VideoJob{}, false},
		{"id not a string", `{"id":7,"status":"queued"}`, VideoJob{}, true},
		{"not an object", `[1]`, VideoJob{}, true},
		{"cut short", `{"id":"v","status":"comp`, VideoJob{}, true},
	}
	for _, tt := range tests {
		got, err := DecodeVideoJob([]byte(tt.in))
		if (err != nil) != tt.err || (err != nil && !errors.Is(err, ErrMalformed)) {
			t.Errorf("%s: err = %v", tt.name, err)
			continue
		}
		if got.ID != tt.want.ID || got.Status != tt.want.Status || got.Progress != tt.want.Progress ||
			got.Seconds != tt.want.Seconds || got.DurationS != tt.want.DurationS || got.Frames != tt.want.Frames ||
			got.FPS != tt.want.FPS || got.InferenceTimeS != tt.want.InferenceTimeS || got.PeakMemoryMB != tt.want.PeakMemoryMB ||
			len(got.StageDurations) != len(tt.want.StageDurations) || (got.Error == nil) != (tt.want.Error == nil) ||
			got.Error != nil && (got.Error.Code != tt.want.Error.Code || got.Error.Message != tt.want.Error.Message) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.name, got, tt.want)
		}
	}
}

// FuzzDecodeVideoJob feeds create and status answers: whatever a server sends, the
// decoder returns ErrMalformed or a job whose numbers are finite, non-negative and
// bounded, so no sum of them reaches +Inf.
func FuzzDecodeVideoJob(f *testing.F) {
	for _, s := range []string{
		`{"id":"video_gen_1","object":"video","status":"queued","seconds":"4"}`,
		`{"id":"v","status":"in_progress","progress":40}`,
		`{"id":"v","status":"completed","duration_s":2,"num_frames":[0,1],"fps":"24","stage_durations":{"dit_gen_ms":4000},"metrics":{"stage_metrics":{"0":{"stage_id":0,"output_unit_type":"video"}}}}`,
		`{"id":"v","status":"failed","error":{"code":"x","message":"m"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		j, err := DecodeVideoJob(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v is not ErrMalformed", err)
			}
			return
		}
		for _, v := range []float64{j.Progress, j.Seconds, j.DurationS, j.FPS, j.InferenceTimeS, j.PeakMemoryMB, float64(j.Frames)} {
			if math.IsNaN(v) || v < 0 || v > maxVideoNumber {
				t.Fatalf("number %v out of range in %+v", v, j)
			}
		}
	})
}
