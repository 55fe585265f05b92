package omni

import (
	"strconv"
	"time"

	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// Metrics are the metrics the omni module records (docs/metrics.md).
type Metrics struct {
	Requests, RequestsFailed                          *metrics.Metric
	E2EL, E2ELIntended, TTFT, TTFC, TTFCIntended      *metrics.Metric
	TPOT, ITL                                         *metrics.Metric
	AudioTTFP, AudioRTF, AudioDuration, AudioUnderrun *metrics.Metric
	UtteranceTTFP, UtteranceRTF                       *metrics.Metric
	InputTokens, OutputTokens                         *metrics.Metric
	Images, ImagePixels, ImageGeneration, DenoiseStep *metrics.Metric
	StageGenTime, StageServingTTFO, StageTPOP         *metrics.Metric
	StageICL, StageTTFT, StageTPOT, StageITL          *metrics.Metric
	// DataSent and DataReceived are the built-in data_sent and data_received.
	DataSent, DataReceived *metrics.Metric
}

// RegisterMetrics registers the omni metrics, so thresholds on them parse even before
// the first request.
func RegisterMetrics(r *metrics.Registry) *Metrics {
	trend := func(n string) *metrics.Metric { return r.MustNew(n, metrics.Trend, metrics.Time) }
	return &Metrics{
		Requests:         r.MustNew("requests", metrics.Counter, metrics.Default),
		RequestsFailed:   r.MustNew("requests_failed", metrics.Rate, metrics.Default),
		E2EL:             trend("e2el"),
		E2ELIntended:     trend("e2el_intended"),
		TTFT:             trend("ttft"),
		TTFC:             trend("ttfc"),
		TTFCIntended:     trend("ttfc_intended"),
		TPOT:             trend("tpot"),
		ITL:              trend("itl"),
		AudioTTFP:        trend("audio_ttfp"),
		AudioRTF:         r.MustNew("audio_rtf", metrics.Trend, metrics.Default),
		AudioDuration:    trend("audio_duration"),
		AudioUnderrun:    trend("audio_underrun"),
		UtteranceTTFP:    trend("utterance_ttfp"),
		UtteranceRTF:     r.MustNew("utterance_rtf", metrics.Trend, metrics.Default),
		InputTokens:      r.MustNew("input_tokens", metrics.Counter, metrics.Default),
		OutputTokens:     r.MustNew("output_tokens", metrics.Counter, metrics.Default),
		Images:           r.MustNew("images", metrics.Counter, metrics.Default),
		ImagePixels:      r.MustNew("image_pixels", metrics.Counter, metrics.Default),
		ImageGeneration:  trend("image_generation"),
		DenoiseStep:      trend("denoise_step"),
		StageGenTime:     trend("stage_gen_time"),
		StageServingTTFO: trend("stage_serving_ttfo"),
		StageTPOP:        trend("stage_tpop"),
		StageICL:         trend("stage_icl"),
		StageTTFT:        trend("stage_ttft"),
		StageTPOT:        trend("stage_tpot"),
		StageITL:         trend("stage_itl"),
		// The built-ins, as metrics.RegisterBuiltins defines them (New returns the same metric).
		DataSent:     r.MustNew("data_sent", metrics.Counter, metrics.Data),
		DataReceived: r.MustNew("data_received", metrics.Counter, metrics.Data),
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// samples turns a record into metric samples tagged with base plus endpoint, status and,
// per sample, modality, error or stage.
func (m *Metrics) samples(r *record.Record, base *metrics.TagSet, meta map[string]string) []metrics.Sample {
	now := r.Start.Add(r.End)
	tags := base.With("endpoint", r.Endpoint).With("status", strconv.Itoa(r.Status))
	out := make([]metrics.Sample, 0, 16+len(r.TextChunks))
	add := func(m *metrics.Metric, t *metrics.TagSet, v float64) {
		out = append(out, metrics.Sample{Metric: m, Tags: t, Time: now, Value: v, Metadata: meta})
	}
	add(m.Requests, tags, 1)
	// A failed request's bytes were still on the wire.
	add(m.DataSent, tags, float64(r.BytesSent))
	add(m.DataReceived, tags, float64(r.BytesReceived))
	if !r.OK() {
		add(m.RequestsFailed, tags.With("error", r.Err.Kind), 1)
		return out
	}
	add(m.RequestsFailed, tags, 0)
	add(m.E2EL, tags, ms(record.E2EL(r)))
	if !r.IntendedStart.IsZero() {
		add(m.E2ELIntended, tags, ms(record.E2ELFromIntended(r)))
	}
	text, audio, image := tags.With("modality", "text"), tags.With("modality", "audio"), tags.With("modality", "image")
	if v, ok := record.TTFC(r); ok {
		add(m.TTFC, tags, ms(v))
		if !r.IntendedStart.IsZero() {
			add(m.TTFCIntended, tags, ms(v+r.Start.Sub(r.IntendedStart)))
		}
	}
	if v, ok := record.TTFT(r); ok {
		add(m.TTFT, text, ms(v))
	}
	if v, ok := record.TPOT(r); ok {
		add(m.TPOT, text, ms(v))
	}
	for _, v := range record.ITL(r) {
		add(m.ITL, text, ms(v))
	}
	add(m.InputTokens, tags, float64(r.Usage.Prompt))
	add(m.OutputTokens, text, float64(r.Usage.Completion))
	if v, ok := record.AudioTTFP(r); ok {
		add(m.AudioTTFP, audio, ms(v))
		add(m.AudioDuration, audio, r.Audio.Seconds*1000)
		if rtf, ok := record.AudioRTF(r); ok {
			add(m.AudioRTF, audio, rtf)
		}
	}
	if v, ok := record.AudioUnderrun(r); ok {
		add(m.AudioUnderrun, audio, v*1000)
	}
	for _, u := range r.Utterances {
		if v, ok := u.TTFP(); ok {
			add(m.UtteranceTTFP, audio, ms(v))
		}
		if v, ok := u.RTF(); ok {
			add(m.UtteranceRTF, audio, v)
		}
	}
	if n := record.ImageCount(r); n > 0 {
		add(m.Images, image, float64(n))
		add(m.ImagePixels, image, float64(r.Images.Pixels))
	}
	if v, ok := record.ImageGenerationMS(r); ok {
		add(m.ImageGeneration, image, v)
	}
	if v, ok := record.DenoiseStepMS(r); ok {
		add(m.DenoiseStep, image, v)
	}
	for _, id := range r.StageIDs() {
		st := r.Stages[id]
		st.Values = nonNil(st.Values)
		stags := tags.With("stage", stageName(st.Name, id)).With("stage_id", id)
		stageValue := func(m *metrics.Metric, key string) {
			if v, ok := st.Values[key]; ok {
				add(m, stags, v)
			}
		}
		stageValue(m.StageGenTime, "stage_gen_time_ms")
		stageValue(m.StageServingTTFO, "serving_time_to_first_output_ms")
		stageValue(m.StageTPOP, "time_per_output_unit_ms")
		stageValue(m.StageTTFT, "vllm_ttft_ms")
		stageValue(m.StageTPOT, "vllm_tpot_ms")
		for _, v := range st.Lists["inter_output_latencies_ms"] {
			add(m.StageICL, stags, v)
		}
		for _, v := range st.Lists["vllm_itls_ms"] {
			add(m.StageITL, stags, v)
		}
	}
	return out
}

func stageName(name, id string) string {
	if name != "" {
		return name
	}
	return "stage_" + id
}

func nonNil(m map[string]float64) map[string]float64 {
	if m == nil {
		return map[string]float64{}
	}
	return m
}
