package omni

import (
	"time"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
	"github.com/omnik-dev/omnik/modules/omni/record"
	"github.com/omnik-dev/omnik/modules/omni/report"
)

// reportRequest turns a record into the reference client's per-request view, with
// Start measured from origin.
func reportRequest(r *record.Record, origin time.Time) report.Request {
	q := report.Request{
		Success:      r.OK(),
		Start:        r.Start.Sub(origin),
		Latency:      record.E2EL(r),
		ITL:          record.ITL(r),
		InputTokens:  r.Usage.Prompt,
		OutputTokens: r.Usage.Completion,
		AudioFrames:  r.Audio.Frames,
		Images:       record.ImageCount(r),
		ImagePixels:  r.Images.Pixels,
	}
	if r.Err != nil {
		q.Error = r.Err.Error()
	}
	if v, ok := record.TTFT(r); ok {
		q.TTFT = v
	}
	if v, ok := record.TTFC(r); ok {
		q.TTFC = v
	}
	if n := len(r.TextChunks); n > 0 {
		q.TextLatency = r.TextChunks[n-1].At
	}
	if v, ok := record.AudioTTFP(r); ok {
		q.AudioTTFP = v
	}
	if v, ok := record.AudioRTF(r); ok {
		q.AudioRTF = v
	}
	q.AudioDuration = time.Duration(r.Audio.Seconds * float64(time.Second))
	if v, ok := record.AudioUnderrun(r); ok {
		d := time.Duration(v * float64(time.Second))
		q.AudioUnderrun = &d
	}
	if v, ok := record.ImageGenerationMS(r); ok {
		q.ImageGenerationMS = v
	}
	if v, ok := record.DenoiseStepMS(r); ok {
		q.DenoiseStepMS = v
	}
	for _, id := range r.StageIDs() {
		q.Stages = append(q.Stages, reportStage(r.Stages[id]))
	}
	return q
}

func reportStage(s chunk.Stage) report.Stage {
	v, l := s.Values, s.Lists
	opt := func(k string) *float64 {
		if x, ok := v[k]; ok {
			return &x
		}
		return nil
	}
	return report.Stage{
		ID: s.ID, Name: s.Name, FinalOutputType: s.FinalOutputType, OutputUnitType: s.OutputUnitType,
		OutputUnitCount: int(v["output_unit_count"]),
		GenTimeMS:       v["stage_gen_time_ms"], PostprocessMS: v["postprocess_time_ms"],
		ServingTTFOMS: opt("serving_time_to_first_output_ms"), TPOPMS: opt("time_per_output_unit_ms"),
		ICLMS: l["inter_output_latencies_ms"], MeanICLMS: opt("inter_output_latency_ms"),
		VLLMTTFTMS: v["vllm_ttft_ms"], VLLMTPOTMS: v["vllm_tpot_ms"], VLLMITLsMS: l["vllm_itls_ms"],
		VLLMMeanITLMS: opt("vllm_itl_ms"),
		NumTokensIn:   int(v["num_tokens_in"]), NumTokensOut: int(v["num_tokens_out"]),
		AudioFrames: int64(v["audio_frames"]), AudioSampleRate: int(v["audio_sample_rate"]),
		AudioDurationS: v["audio_duration_s"], AudioRTF: v["audio_rtf"],
		ImagePixels: int64(v["image_pixels"]), DenoiseStepLatencyMS: v["denoise_step_latency_ms"],
	}
}
