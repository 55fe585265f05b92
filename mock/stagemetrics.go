package mock

import (
	"encoding/json"
	"math"
	"strconv"
	"time"
)

// stageMetrics is one stage's entry in metrics.stage_metrics, with the keys
// vLLM-Omni's StagePool.build_stage_metrics emits (omni-metrics.md §6.1).
type stageMetrics struct {
	StageID                int       `json:"stage_id"`
	StageName              string    `json:"stage_name"`
	FinalOutputType        string    `json:"final_output_type"`
	StageGenTimeMs         float64   `json:"stage_gen_time_ms"`
	NumTokensIn            *int      `json:"num_tokens_in,omitempty"`
	NumTokensOut           int       `json:"num_tokens_out"`
	OutputUnitType         string    `json:"output_unit_type"`
	OutputUnitCount        int       `json:"output_unit_count"`
	ServingTTFOMs          float64   `json:"serving_time_to_first_output_ms"`
	TimePerOutputUnitMs    float64   `json:"time_per_output_unit_ms"`
	InterOutputLatenciesMs []float64 `json:"inter_output_latencies_ms"`
	InterOutputLatencyMs   float64   `json:"inter_output_latency_ms"`
	VllmTTFTMs             *float64  `json:"vllm_ttft_ms,omitempty"`
	VllmTPOTMs             *float64  `json:"vllm_tpot_ms,omitempty"`
	VllmITLMs              *float64  `json:"vllm_itl_ms,omitempty"`
	VllmITLsMs             []float64 `json:"vllm_itls_ms,omitempty"`
	PostprocessTimeMs      float64   `json:"postprocess_time_ms"`
	AudioFrames            int       `json:"audio_frames,omitempty"`
	AudioSampleRate        int       `json:"audio_sample_rate,omitempty"`
	AudioDurationS         float64   `json:"audio_duration_s,omitempty"`
	ImagePixels            int       `json:"image_pixels,omitempty"`
	DenoiseStepLatencyMs   float64   `json:"denoise_step_latency_ms,omitempty"`
	FinishReason           string    `json:"finish_reason"`
}

// metricsObject is the chunk-level `metrics` value: every stage finished so
// far, keyed by id, plus the current stage's summary keys at top level.
type metricsObject struct {
	StageMetrics    map[string]*stageMetrics `json:"stage_metrics"`
	StageID         int                      `json:"stage_id"`
	FinalOutputType string                   `json:"final_output_type"`
	NumTokensIn     int                      `json:"num_tokens_in"`
	NumTokensOut    int                      `json:"num_tokens_out"`
	// The request's profile and stream-edge snapshot (serverstats.go).
	StageDurations json.RawMessage         `json:"stage_durations,omitempty"`
	PeakMemoryMB   float64                 `json:"peak_memory_mb"`
	StreamEdges    map[string]edgeSnapshot `json:"stream_edges,omitempty"`
}

func msOf(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}

// stageMetrics computes stage i's entry from its stamps (call once it ended).
func (pl *pipeline) stageMetrics(i int) *stageMetrics {
	st, sp, stamps := pl.stages[i], pl.plans[i], pl.stamps[i]
	submit := pl.accept.Add(sp.submit)
	first, last := stamps[0], stamps[len(stamps)-1]
	m := &stageMetrics{
		StageID: i, StageName: st.Name, FinalOutputType: st.FinalOutputType,
		StageGenTimeMs:         msOf(last.Sub(submit)),
		OutputUnitType:         st.Output,
		ServingTTFOMs:          msOf(max(first.Sub(pl.accept), 0)),
		InterOutputLatenciesMs: []float64{},
		FinishReason:           "stop",
	}
	for k := 1; k < len(stamps); k++ {
		m.InterOutputLatenciesMs = append(m.InterOutputLatenciesMs, msOf(stamps[k].Sub(stamps[k-1])))
	}
	m.InterOutputLatencyMs = mean(m.InterOutputLatenciesMs)
	if i == 0 {
		m.NumTokensIn = &pl.tokensIn
	}
	units := sum(sp.units)
	switch st.Output {
	case OutputText, OutputStream:
		m.NumTokensOut, m.OutputUnitCount = units, units
		if units > 1 {
			m.TimePerOutputUnitMs = msOf(last.Sub(first) / time.Duration(units-1))
		}
		pl.engineMetrics(m, i, submit)
		if st.Output == OutputText {
			m.FinishReason = pl.finish
		}
	case OutputAudio:
		frames := units * int(math.Round(st.AudioSecondsPerChunk*float64(st.SampleRate)))
		m.OutputUnitCount, m.AudioFrames, m.AudioSampleRate = frames, frames, st.SampleRate
		m.AudioDurationS = float64(frames) / float64(st.SampleRate)
	case OutputVideo:
		m.OutputUnitCount = units
	case OutputImage:
		m.OutputUnitCount = units
		m.ImagePixels = units * pl.pixels
		m.DenoiseStepLatencyMs = math.Round(m.StageGenTimeMs/float64(sp.steps)*1000) / 1000
	}
	return m
}

// engineMetrics fills the vllm_* keys. The engine sees tokens, not chunks:
// a chunk of k tokens after a gap g counts as k inter-token gaps of g/k,
// and the first chunk's extra tokens take the stage's nominal time per unit.
func (pl *pipeline) engineMetrics(m *stageMetrics, i int, submit time.Time) {
	stamps, units := pl.stamps[i], pl.plans[i].units
	ttft := msOf(stamps[0].Sub(submit))
	itls := []float64{}
	nominal := msOf(time.Duration(pl.stages[i].TimePerUnit))
	for range units[0] - 1 {
		itls = append(itls, nominal)
	}
	for k := 1; k < len(stamps); k++ {
		g := msOf(stamps[k].Sub(stamps[k-1])) / float64(units[k])
		for range units[k] {
			itls = append(itls, math.Round(g*1000)/1000)
		}
	}
	tpot := mean(itls)
	m.VllmTTFTMs, m.VllmTPOTMs, m.VllmITLMs, m.VllmITLsMs = &ttft, &tpot, &tpot, itls
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return math.Round(t/float64(len(xs))*1000) / 1000
}

// metrics returns the `metrics` value for a chunk of stage cur, or JSON null
// when the request did not ask for stage metrics.
func (pl *pipeline) metrics(want bool, cur int) json.RawMessage {
	if !want {
		return json.RawMessage("null")
	}
	obj := metricsObject{StageMetrics: map[string]*stageMetrics{}, StageID: cur,
		FinalOutputType: pl.stages[cur].FinalOutputType, NumTokensIn: pl.tokensIn,
		StageDurations: stageDurations(pl), PeakMemoryMB: pl.peakMemoryMB(), StreamEdges: pl.streamEdges()}
	for id, m := range pl.finished {
		if m != nil {
			obj.StageMetrics[strconv.Itoa(id)] = m
		}
	}
	if pl.stages[cur].Output == OutputText || pl.stages[cur].Output == OutputStream {
		obj.NumTokensOut = sum(pl.plans[cur].units)
	}
	b, _ := json.Marshal(obj)
	return b
}

// allMetrics is metrics for the last stage, once every stage has finished.
func (pl *pipeline) allMetrics(want bool) json.RawMessage {
	return pl.metrics(want, len(pl.stages)-1)
}
