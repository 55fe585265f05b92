package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// serverProfile adds a response's stage_durations and peak memory.
func serverProfile(peakMB float64, durations chunk.Durations) func(*record.Record) {
	return func(r *record.Record) { r.Images.StageDurations, r.Images.PeakMemoryMB = durations, peakMB }
}

// edge adds one stream edge's events (ms), all in the orchestrator's clock.
func edge(key string, emit, send, accept, output float64) func(*record.Record) {
	return func(r *record.Record) {
		if r.Edges == nil {
			r.Edges = map[string]chunk.Edge{}
		}
		clocks := map[string]string{}
		for _, ev := range []string{record.EdgeProducerEmit, record.EdgeSendComplete, record.EdgeConsumerAccept, record.EdgeConsumerOutput} {
			clocks[ev] = "orchestrator"
		}
		r.Edges[key] = chunk.Edge{Values: map[string]float64{
			record.EdgeProducerEmit + "_ms": emit, record.EdgeSendComplete + "_ms": send,
			record.EdgeConsumerAccept + "_ms": accept, record.EdgeConsumerOutput + "_ms": output}, Clocks: clocks}
	}
}

// speechStageRun is a /v1/audio/speech run with --print-stage against a three-stage TTS
// pipeline: each response's SSE carried its stage metrics, a profile and the edges.
func speechStageRun() []*record.Record {
	talker := func(gen, ttfc float64) chunk.Stage {
		return stage(0, "talker", "", "stream", map[string]float64{"stage_gen_time_ms": gen,
			"serving_time_to_first_output_ms": ttfc, "output_unit_count": 40, "time_per_output_unit_ms": 20}, nil)
	}
	code2wav := func(gen, ttfp float64) chunk.Stage {
		return stage(1, "code2wav", "audio", "audio", map[string]float64{"stage_gen_time_ms": gen,
			"serving_time_to_first_output_ms": ttfp, "audio_frames": 48000, "audio_duration_s": 2}, nil)
	}
	// In the server's order, which the rows keep.
	profile := func(diffuse, encoder, queue float64) chunk.Durations {
		return chunk.Durations{{Key: "queue_wait_ms", Value: queue}, {Key: "Wan22I2VPipeline.text_encoder.forward", Value: encoder},
			{Key: "stage_0_gen_ms", Value: 800}, {Key: "Wan22I2VPipeline.diffuse", Value: diffuse}, {Key: "vae2d.decode", Value: 0.25}}
	}
	return []*record.Record{
		req(at(0, 1200), speech(48000, 100, 1120), tokens(18, 77), withStages(talker(900, 60), code2wav(1000, 110)),
			serverProfile(2048, profile(1.5, 0.125, 4)), edge("0->1:0", 60, 61, 75, 110)),
		req(at(1300, 1100), speech(48000, 1400, 2300), tokens(20, 80), withStages(talker(850, 55), code2wav(950, 100)),
			serverProfile(2560, profile(1.25, 0.25, 12)), edge("0->1:0", 55, 55.5, 95, 100)),
		req(at(2500, 1000), speech(48000, 2600, 3400), tokens(16, 60), withStages(talker(800, 50), code2wav(900, 90)),
			serverProfile(3072, profile(1, 0.5, 20)), edge("0->1:0", 50, 51, 62.5, 90)),
	}
}

// The Peak Memory block and Stage Durations rows sit after the peak concurrency row
// (latest upstream), a speech run prints only its input tokens (its output tokens are
// codec tokens, which the reference does not count as text), and the
// Stage section ends with omnik's hand-off block.
func TestRenderSpeechStageRunGolden(t *testing.T) {
	t.Parallel()
	r := aggregate(speechStageRun(), 4*time.Second, Options{MaxConcurrency: 1})
	var buf bytes.Buffer
	metrics := []string{"e2el", "audio_ttfp", "audio_rtf", "ttfc", "tpop", "icl"}
	if err := Render(&buf, r, RenderOptions{Metrics: metrics, Stages: true}); err != nil {
		t.Fatal(err)
	}
	compareGolden(t, "speech_stage_metrics.golden", buf.String())
}

func TestRenderServerBlockRules(t *testing.T) {
	t.Parallel()
	recs := speechStageRun()
	p90 := aggregate(recs, 4*time.Second, Options{Percentiles: []float64{90}})
	chat := aggregate([]*record.Record{req(at(0, 500), text(100, 50), tokens(5, 0), chatAudio(100, 400, 1, 24000))}, time.Second, Options{})
	bare := aggregate([]*record.Record{req(at(0, 500), speech(4800, 100))}, time.Second, Options{})
	tests := []struct {
		name       string
		r          *Result
		opts       RenderOptions
		want, miss []string
	}{
		{"Stage Durations print P99 only when 99 is requested; Peak Memory prints every percentile", p90, RenderOptions{},
			[]string{"Median Diffuse (s):                      1.25      \n", "P90 PEAK_MEMORY_MB (MB):                 2969.60   \n"},
			[]string{"P99 Diffuse", "P99 PEAK_MEMORY_MB", "Stage 0 Gen"}},
		{"a chat run without text keeps the zero rows", chat, RenderOptions{},
			[]string{"Total generated tokens:                  0         \n"}, nil},
		{"nothing reported, nothing printed", bare, RenderOptions{Stages: true}, nil,
			[]string{"Peak Memory", "Stage Durations", "Stage Benchmark Result", "Hand-off"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Render(&buf, tt.r, tt.opts); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(buf.String(), w) {
					t.Errorf("missing %q in\n%s", w, buf.String())
				}
			}
			for _, m := range tt.miss {
				if strings.Contains(buf.String(), m) {
					t.Errorf("unexpected %q in\n%s", m, buf.String())
				}
			}
		})
	}
}

// The labels are the reference's _stage_duration_display_name.
func TestDurationLabel(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]string{
		"Wan22I2VPipeline.diffuse":              "Diffuse",
		"Wan22I2VPipeline.text_encoder.forward": "Text Encoder Forward",
		"queue_wait_ms":                         "Queue Wait",
		"vae2d.decode":                          "Vae2D Decode",
		"DiT_forward":                           "Dit Forward",
		"Pipeline":                              "Pipeline",
		"MyPipeline.":                           "",
		"a.b.c_ms_ms":                           "A B C Ms",
		"élan_vital":                            "Élan Vital",
	} {
		if got := durationLabel(key); got != want {
			t.Errorf("durationLabel(%q) = %q, want %q", key, got, want)
		}
	}
	for key, want := range map[string]bool{"stage_0_gen_ms": true, "stage_12_gen_ms": true, "stage__gen_ms": false,
		"stage_x_gen_ms": false, "dit_gen_ms": false} {
		if stageGenKey(key) != want {
			t.Errorf("stageGenKey(%q) = %v", key, !want)
		}
	}
}

// A hand-off is derived only within one clock domain and never negative; edges sort by
// stage ids, not as text.
func TestEdgeHandoffs(t *testing.T) {
	t.Parallel()
	skew := edge("1->2:0", 10, 11, 30, 40)
	recs := []*record.Record{
		req(at(0, 100), edge("10->11:0", 0, 1, 2, 3), edge("2->3:0", 5, 6, 9, 10), skew, func(r *record.Record) {
			e := r.Edges["1->2:0"]
			e.Clocks = map[string]string{record.EdgeProducerEmit: "orchestrator", record.EdgeConsumerAccept: "worker"}
			r.Edges["1->2:0"] = e
		}),
		req(at(0, 100), edge("2->3:0", 9, 9, 5, 10)), // accepted before it was emitted: no hand-off
	}
	r := aggregate(recs, time.Second, Options{})
	var keys []string
	for _, e := range r.Edges {
		keys = append(keys, e.Key)
		if e.Key == "2->3:0" && (e.Handoff.N != 1 || e.Handoff.Mean != 4 || e.FromName != "stage_2") {
			t.Errorf("edge 2->3 = %+v", e)
		}
	}
	if strings.Join(keys, " ") != "2->3:0 10->11:0" {
		t.Errorf("edges %v: want the cross-clock one left out and numeric order", keys)
	}
}

// --save-result keeps the reference's keys and puts the profile and the hand-offs under
// "omnik".
func TestSaveResultServerKeys(t *testing.T) {
	t.Parallel()
	r := aggregate(speechStageRun(), 4*time.Second, Options{})
	m := SaveResult(r, RunInfo{}, nil)
	o := m["omnik"].(map[string]any)
	d := o["stage_durations"].(map[string]any)["queue_wait_ms"].(map[string]any)
	e := o["stream_edges"].(map[string]any)["0->1:0"].(map[string]any)
	if o["mean_peak_memory_mb"] != 2560.0 || d["mean"] != 12.0 || d["p99"] != r.StageDurations[0].Dist.Percentiles[0].Value ||
		e["mean_handoff_ms"] != 22.5 || m["total_output_tokens"] != 0 {
		t.Errorf("omnik keys %v, total output %v", o, m["total_output_tokens"])
	}
	if _, ok := m["mean_peak_memory_mb"]; ok {
		t.Error("a reference-level key the reference's file may not have")
	}
}
