package report

import (
	"testing"

	"github.com/omnik-dev/omnik/modules/omni/record"
)

// stagedRun is a Qwen3-Omni-like run plus an image stage and an unnamed stage.
func stagedRun() []*record.Record {
	v := func(kv ...any) map[string]float64 {
		m := map[string]float64{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1].(float64)
		}
		return m
	}
	return []*record.Record{
		req(withStages(
			stage(0, "thinker", "text", "text", v("output_unit_count", 20.0, "stage_gen_time_ms", 1000.0, "postprocess_time_ms", 5.0,
				"serving_time_to_first_output_ms", 100.0, "vllm_ttft_ms", 90.0, "vllm_tpot_ms", 10.0, "num_tokens_out", 20.0),
				map[string][]float64{"vllm_itls_ms": {10, 12}}),
			stage(1, "talker", "latent", "stream", v("output_unit_count", 5.0, "stage_gen_time_ms", 2000.0,
				"serving_time_to_first_output_ms", 0.0, "time_per_output_unit_ms", 12.0),
				map[string][]float64{"inter_output_latencies_ms": {11, 13}}),
			stage(2, "code2wav", "audio", "audio", v("output_unit_count", 48000.0, "stage_gen_time_ms", 3000.0,
				"serving_time_to_first_output_ms", 300.0, "audio_duration_s", 2.0), nil),
			stage(3, "dit", "image", "image", v("output_unit_count", 2.0, "stage_gen_time_ms", 5000.0), nil),
		)),
		req(withStages(
			stage(2, "", "", "audio", v("stage_gen_time_ms", 1000.0, "serving_time_to_first_output_ms", 0.0, "audio_frames", 24000.0), nil),
			stage(0, "ignored: the first row names the stage", "", "", v("stage_gen_time_ms", 3000.0, "postprocess_time_ms", 0.0,
				"serving_time_to_first_output_ms", 300.0, "vllm_itl_ms", 14.0, "num_tokens_out", 30.0), nil),
			stage(1, "", "", "stream", v("output_unit_count", 1.0, "stage_gen_time_ms", 4000.0, "time_per_output_unit_ms", 99.0,
				"inter_output_latency_ms", 15.0), nil),
		)),
		req(failed(record.KindHTTPStatus), withStages(stage(5, "failed requests are ignored", "", "", nil, nil))),
		req(withStages(stage(7, "", "", "", v("stage_gen_time_ms", 1.0), nil), stage(0, "", "", "", nil, nil))),
	}
}

func TestAggregateStages(t *testing.T) {
	t.Parallel()
	st := aggregate(stagedRun(), 0, Options{}).Stages
	if len(st) != 5 {
		t.Fatalf("got %d stages, want 5 (ids 0 1 2 3 7)", len(st))
	}
	text, stream, audio, image, other := st[0], st[1], st[2], st[3], st[4]
	checks := []struct {
		name      string
		got, want float64
	}{
		{"ids ascending", float64(other.ID), 7},
		{"text gen time: rows that reported it", text.GenTime.Mean, 2000},
		{"text gen time samples", float64(text.GenTime.N), 2},
		{"text postprocess kept when any > 0, reported zeros count", text.Postprocess.Mean, 2.5},
		{"text tokens", float64(text.Tokens), 50},
		{"text serving ttft", text.ServingTTFT.Mean, 200},
		{"text engine ttft (> 0 only)", float64(text.TTFT.N), 1},
		{"text engine itl flattens lists and means", text.ITL.Mean, 12},
		{"text engine itl samples", float64(text.ITL.N), 3},
		{"stream ttfc keeps zeros, drops nulls", float64(stream.TTFC.N), 1},
		{"stream tpop needs more than one unit", stream.TPOP.Mean, 12},
		{"stream icl", stream.ICL.Mean, 13},
		{"stream postprocess absent", float64(stream.Postprocess.N), 0},
		{"audio frames fall back to the unit count", float64(audio.AudioFrames), 72000},
		{"audio durations > 0", float64(audio.AudioDurations.N), 1},
		{"audio total duration", audio.AudioDuration, 2},
		{"audio missing durations", float64(audio.MissingAudioDuration), 1},
		{"audio serving ttfp > 0", audio.ServingTTFP.Mean, 300},
		{"no server audio_rtf", float64(audio.AudioRTF.N), 0},
		{"image count", float64(image.Images), 2},
		{"image generation from gen time", image.GenTime.Mean, 5000},
	}
	for _, c := range checks {
		if !near(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	kinds := []record.StageKind{record.StageText, record.StageStream, record.StageAudio, record.StageImage, record.StageOther}
	names := []string{"thinker", "talker", "code2wav", "dit", "stage_7"}
	for i, s := range st {
		if s.Kind != kinds[i] || s.Name != names[i] {
			t.Errorf("stage %d: kind %v name %q, want %v %q", s.ID, s.Kind, s.Name, kinds[i], names[i])
		}
	}
}
