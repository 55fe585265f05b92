package report

import (
	"strings"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/record"
)

// wanVideo is a text-to-video run of three jobs, built by the format rules of
// omni-metrics.md §7.1–7.3 (no seed output of the latest blocks exists): no Text Result
// (no tokens, a video), the Video Result rows and blocks, and a video stage.
func wanVideo() *Result {
	r := seedServing(30.12, d3(9021.37, 8811.02, 10422.85))
	r.RequestThroughput = 0.10
	r.TotalInput = 36
	r.VideoTotalDuration, r.VideoTotalFrames, r.VideoThroughput = 15.19, 243, 0.50
	r.VideoRTF = d3(1.62, 1.60, 1.75)
	r.VideoGeneration = d3(8200.41, 8103.66, 9115.20)
	r.Stages = []StageResult{{ID: 0, Name: "dit", Kind: record.StageVideo, GenTime: d3(8190.12, 8100.05, 9105.77)}}
	return &r
}

func TestRenderVideoResultGolden(t *testing.T) {
	t.Parallel()
	compareGolden(t, "wan_video.golden", render(t, wanVideo(), RenderOptions{Metrics: seedMetrics, Stages: true}))
}

// Each Video block prints only when its mean is above 0; the totals print whenever the
// run made video, and a run without any prints no Video Result.
func TestRenderVideoBlocksNeedAMeanAboveZero(t *testing.T) {
	t.Parallel()
	noServerTime := wanVideo()
	noServerTime.VideoGeneration = Dist{}
	noDuration := wanVideo()
	noDuration.VideoTotalDuration, noDuration.VideoRTF, noDuration.VideoGeneration = 0, Dist{}, Dist{}
	none := wanVideo()
	none.VideoTotalDuration, none.VideoTotalFrames, none.VideoRTF, none.VideoGeneration = 0, 0, Dist{}, Dist{}
	tests := []struct {
		name       string
		r          *Result
		want, miss []string
	}{
		{"no server generation time", noServerTime, []string{"------------------- Video RTF --------------------\n"}, []string{"Video Generation =", "VIDEO_GENERATION (ms)"}},
		{"frames only", noDuration, []string{"Total video frames generated:            243       \n"}, []string{"VIDEO_RTF", "VIDEO_GENERATION (ms)"}},
		{"no video", none, []string{" Text Result "}, []string{"Video Result"}},
	}
	for _, tt := range tests {
		out := render(t, tt.r, RenderOptions{Metrics: seedMetrics})
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: no %q in\n%s", tt.name, w, out)
			}
		}
		for _, m := range tt.miss {
			if strings.Contains(out, m) {
				t.Errorf("%s: %q in\n%s", tt.name, m, out)
			}
		}
	}
}

// Video records fold into the Video Result as the reference aggregates them: durations
// and frames summed, RTF from the server's generation time, else E2EL, one
// VIDEO_GENERATION value per job whose server reported a time; failed jobs only count.
func TestAccumulatorFoldsVideoJobs(t *testing.T) {
	t.Parallel()
	video := func(e2elMS float64, v record.Video) func(*record.Record) {
		return func(r *record.Record) {
			r.Endpoint, r.End, r.Video = record.EndpointVideos, ms(e2elMS), v
			r.Video.Status = "completed"
		}
	}
	recs := []*record.Record{
		req(at(0, 5000), video(5000, record.Video{Seconds: 2, Frames: 48, GenerationMS: 4000})),
		req(at(100, 6000), video(6000, record.Video{Seconds: 3, Frames: 72})),
		req(at(200, 100), video(100, record.Video{}), failed(record.KindJobFailed)),
	}
	r := aggregate(recs, 10*time.Second, Options{})
	if r.Completed != 2 || r.Failed != 1 || r.VideoTotalDuration != 5 || r.VideoTotalFrames != 120 || r.VideoThroughput != 0.5 {
		t.Fatalf("totals %+v", r)
	}
	// RTFs 4/2 = 2 (server) and 6/3 = 2 (E2EL): mean 2.
	if r.VideoRTF.N != 2 || r.VideoRTF.Mean != 2 || r.VideoGeneration.N != 1 || r.VideoGeneration.Mean != 4000 {
		t.Errorf("RTF %+v generation %+v", r.VideoRTF, r.VideoGeneration)
	}
	out := render(t, r, RenderOptions{})
	for _, w := range []string{"Total video duration generated(s):       5.00      \n", "Mean VIDEO_RTF:                          2.00      \n",
		"Mean VIDEO_GENERATION (ms):              4000.00   \n"} {
		if !strings.Contains(out, w) {
			t.Errorf("no %q in\n%s", w, out)
		}
	}
	if strings.Contains(out, "Text Result") || strings.Contains(out, "Image Result") {
		t.Errorf("a video run printed other sections:\n%s", out)
	}
}

// The result file has latest upstream's video keys for a run that made video, and none
// for one that did not.
func TestSaveResultVideoKeys(t *testing.T) {
	t.Parallel()
	m := SaveResult(wanVideo(), RunInfo{}, seedMetrics)
	for k, want := range map[string]any{"total_video_duration_s": 15.19, "total_video_frames": int64(243), "video_throughput": 0.50,
		"mean_video_rtf": 1.62, "p99_video_rtf": 1.75, "median_video_generation_ms": 8103.66} {
		if m[k] != want {
			t.Errorf("%s = %#v, want %#v", k, m[k], want)
		}
	}
	if _, ok := SaveResult(qwen3Omni(), RunInfo{}, seedMetrics)["total_video_duration_s"]; ok {
		t.Error("a run without video has video keys")
	}
}
