package report

import (
	"encoding/json"
	"testing"
)

// stagedRun is a Qwen3-Omni-like run plus an image stage and an unnamed stage.
func stagedRun() []Request {
	return []Request{
		{Success: true, Stages: []Stage{
			{ID: 0, Name: "thinker", FinalOutputType: "text", OutputUnitType: "text", OutputUnitCount: 20,
				GenTimeMS: 1000, PostprocessMS: 5, ServingTTFOMS: ptr(100.0), VLLMTTFTMS: 90, VLLMTPOTMS: 10,
				VLLMITLsMS: []float64{10, 12}, NumTokensOut: 20},
			{ID: 1, Name: "talker", FinalOutputType: "latent", OutputUnitType: "stream", OutputUnitCount: 5,
				GenTimeMS: 2000, ServingTTFOMS: ptr(0.0), TPOPMS: ptr(12.0), ICLMS: []float64{11, 13}},
			{ID: 2, Name: "code2wav", FinalOutputType: "audio", OutputUnitType: "audio", OutputUnitCount: 48000,
				GenTimeMS: 3000, ServingTTFOMS: ptr(300.0), AudioDurationS: 2},
			{ID: 3, Name: "dit", FinalOutputType: "image", OutputUnitType: "image", OutputUnitCount: 2, GenTimeMS: 5000},
		}},
		{Success: true, Stages: []Stage{
			{ID: 2, OutputUnitType: "audio", GenTimeMS: 1000, ServingTTFOMS: ptr(0.0), AudioFrames: 24000},
			{ID: 0, Name: "ignored: the first row names the stage", GenTimeMS: 3000, ServingTTFOMS: ptr(300.0),
				VLLMMeanITLMS: ptr(14.0), NumTokensOut: 30},
			{ID: 1, OutputUnitType: "stream", OutputUnitCount: 1, GenTimeMS: 4000, TPOPMS: ptr(99.0), MeanICLMS: ptr(15.0)},
		}},
		{Success: false, Stages: []Stage{{ID: 5, Name: "failed requests are ignored"}}},
		{Success: true, Stages: []Stage{{ID: 7, GenTimeMS: 1}}},
	}
}

func TestAggregateStages(t *testing.T) {
	t.Parallel()
	st := aggregateStages(stagedRun(), []float64{99})
	if len(st) != 5 {
		t.Fatalf("got %d stages, want 5 (ids 0 1 2 3 7)", len(st))
	}
	text, stream, audio, image, other := st[0], st[1], st[2], st[3], st[4]
	checks := []struct {
		name      string
		got, want float64
	}{
		{"ids ascending", float64(other.ID), 7},
		{"text gen time mean", text.GenTime.Mean, 2000},
		{"text postprocess kept when any > 0", text.Postprocess.Mean, 2.5},
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
	kinds := []StageKind{StageText, StageStream, StageAudio, StageImage, StageOther}
	names := []string{"thinker", "talker", "code2wav", "dit", "stage_7"}
	for i, s := range st {
		if s.Kind != kinds[i] || s.Name != names[i] {
			t.Errorf("stage %d: kind %v name %q, want %v %q", s.ID, s.Kind, s.Name, kinds[i], names[i])
		}
	}
}

func TestStageKind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		final, unit string
		want        StageKind
	}{
		{"text", "", StageText},
		{"", "text", StageText},
		{"audio", "latent", StageAudio},
		{"", "audio", StageAudio},
		{"images", "", StageImage},
		{"", "image", StageImage},
		{"image", "video", StageVideo}, // latest: image only when not video
		{"videos", "", StageVideo},
		{"unknown", "stream", StageStream},
		{"text", "stream", StageText},
		{"unknown", "latent", StageOther},
		{"unknown", "other", StageOther},
	}
	for _, tt := range tests {
		if got := stageKind(tt.final, tt.unit); got != tt.want {
			t.Errorf("stageKind(%q, %q) = %v, want %v", tt.final, tt.unit, got, tt.want)
		}
	}
}

func TestStageDecodesWireKeys(t *testing.T) {
	t.Parallel()
	raw := `{"stage_id": 1, "stage_name": "talker", "final_output_type": "latent", "output_unit_type": "stream",
		"output_unit_count": 140, "stage_gen_time_ms": 16326.3, "serving_time_to_first_output_ms": 0,
		"time_per_output_unit_ms": null, "inter_output_latencies_ms": [11.5, 12.1], "vllm_ttft_ms": 1.5,
		"num_tokens_out": 139, "audio_duration_s": 0, "batch_size": 1}`
	var s Stage
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		t.Fatal(err)
	}
	if s.ID != 1 || s.Name != "talker" || s.OutputUnitCount != 140 || s.GenTimeMS != 16326.3 ||
		s.ServingTTFOMS == nil || *s.ServingTTFOMS != 0 || s.TPOPMS != nil || len(s.ICLMS) != 2 || s.NumTokensOut != 139 {
		t.Errorf("decoded %+v", s)
	}
}
