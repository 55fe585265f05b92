package report

import (
	"encoding/json"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/record"
)

// RunInfo is what the `--save-result` file records about the run besides its Result.
type RunInfo struct {
	Date         time.Time
	EndpointType string
	Backend      string
	Label        string
	ModelID      string
	TokenizerID  string
	NumPrompts   int
	Metadata     map[string]string // `--metadata KEY=VALUE` pairs, written as top-level keys
	Burstiness   float64
}

// dateLayout is vLLM's `%Y%m%d-%H%M%S`.
const dateLayout = "20060102-150405"

// metricKey is the key stem of a metric name in the result file, with its unit suffix.
var metricKey = map[string]string{
	"ttft": "ttft_ms", "tpot": "tpot_ms", "itl": "itl_ms", "e2el": "e2el_ms",
	"audio_ttfp": "audio_ttfp_ms", "audio_rtf": "audio_rtf",
	"audio_duration": "audio_duration_s", "audio_underrun": "audio_underrun_s",
}

// SaveResult builds the `--save-result` JSON object of `vllm bench serve --omni`: the same
// keys, names and units (no std_* keys), finite numbers only, and omnik's additions under
// "omnik". metrics is the `--percentile-metrics` selection, nil for omnik's default.
func SaveResult(r *Result, info RunInfo, metrics []string) map[string]any {
	m := map[string]any{
		"date":          info.Date.Format(dateLayout),
		"endpoint_type": info.EndpointType,
		"backend":       info.Backend,
		"label":         nilIfEmpty(info.Label),
		"model_id":      info.ModelID,
		"tokenizer_id":  info.TokenizerID,
		"num_prompts":   info.NumPrompts,
		"request_rate":  rateValue(r),
		"burstiness":    info.Burstiness,
		"max_concurrency": func() any {
			if r.MaxConcurrency > 0 {
				return r.MaxConcurrency
			}
			return nil
		}(),

		"duration":                     r.Duration.Seconds(),
		"completed":                    r.Completed,
		"failed":                       r.Failed,
		"interrupted":                  r.Interrupted,
		"total_input_tokens":           r.TotalInput,
		"total_output_tokens":          r.TotalOutput,
		"request_throughput":           r.RequestThroughput,
		"request_goodput":              r.RequestGoodput,
		"output_throughput":            r.OutputThroughput,
		"total_token_throughput":       r.TotalTokenThroughput,
		"total_audio_duration_s":       r.AudioTotalDuration,
		"total_audio_frames":           r.AudioTotalFrames,
		"audio_throughput":             r.AudioThroughput,
		"total_images":                 r.Images,
		"image_throughput":             r.ImageThroughput,
		"average_pixels_per_image":     r.AvgPixels,
		"mean_denoise_step_latency_ms": r.MeanDenoiseStepMS,
		"max_output_tokens_per_s":      r.PeakOutputTokens,
		"max_concurrent_requests":      r.PeakConcurrency,
		// Σ input audio / duration for ASR runs: omnik sends no input audio to transcribe.
		"rtfx": 0.0,
	}
	if r.hasVideo() {
		// Latest upstream's video keys, only for runs that made videos.
		m["total_video_duration_s"], m["total_video_frames"], m["video_throughput"] = r.VideoTotalDuration, r.VideoTotalFrames, r.VideoThroughput
		putDist(m, "video_rtf", r.VideoRTF)
		putDist(m, "video_generation_ms", r.VideoGeneration)
	}
	for k, v := range info.Metadata {
		m[k] = v
	}
	sel := selectMetrics(r, metrics)
	for _, name := range sel {
		if name == "tpop" {
			name = "tpot"
		}
		b, ok := globalBlocks[name]
		if !ok {
			continue // stage-only names have no run-level keys
		}
		d := b.dist(r)
		text := name == "ttft" || name == "tpot" || name == "itl"
		if text && r.TotalOutput <= 0 || b.skipEmpty && d.N == 0 {
			continue
		}
		putDist(m, metricKey[name], d)
	}
	m["omnik"] = omnikKeys(r, sel)
	return m
}

// omnikKeys are the values omnik adds without touching the reference's keys.
func omnikKeys(r *Result, sel selection) map[string]any {
	goodput := map[string]float64{}
	for _, s := range r.Goodput {
		goodput[s.Metric] = float64(s.Max) / float64(time.Millisecond)
	}
	o := map[string]any{
		"percentile_metrics":       []string(sel),
		"metric_percentiles":       r.Percentiles,
		"goodput_slo_ms":           goodput,
		"audio_continuity_ok_rate": r.ContinuityOKRate,
		"audio_underrun_measured":  r.UnderrunMeasured,
		"percentile_error_bound":   r.ErrorBound(),
	}
	putDist(o, "ttfc_ms", r.TTFC)
	putDist(o, "image_generation_ms", r.ImageGeneration)
	stages := make([]map[string]any, len(r.Stages))
	for i := range r.Stages {
		stages[i] = stageKeys(&r.Stages[i])
	}
	o["stages"] = stages
	serverKeys(o, r)
	return o
}

// serverKeys are the servers' profile and the stream-edge hand-offs. The latest reference
// saves the first two under names no stored revision shows, so they are omnik's keys.
func serverKeys(o map[string]any, r *Result) {
	if r.PeakMemory.N > 0 {
		putDist(o, "peak_memory_mb", r.PeakMemory)
	}
	durations := map[string]any{}
	for _, d := range r.StageDurations {
		durations[d.Key] = map[string]any{"mean": d.Dist.Mean, "median": d.Dist.Median, "p99": d.Dist.Percentiles[0].Value}
	}
	o["stage_durations"] = durations
	edges := map[string]any{}
	for _, e := range r.Edges {
		m := map[string]any{}
		putDist(m, "handoff_ms", e.Handoff)
		edges[e.Key] = m
	}
	o["stream_edges"] = edges
}

// ErrorBound is the largest relative error of any median or percentile: 0 while every
// list fit Options.ExactSamples.
func (r *Result) ErrorBound() float64 {
	ds := []Dist{r.E2EL, r.TTFT, r.TPOT, r.ITL, r.TTFC, r.AudioTTFP, r.AudioRTF, r.AudioDuration,
		r.AudioUnderrun, r.ImageGeneration, r.VideoRTF, r.VideoGeneration}
	for _, s := range r.Stages {
		ds = append(ds, s.GenTime, s.Postprocess, s.ServingTTFT, s.TTFT, s.TPOT, s.ITL, s.ServingTTFP,
			s.AudioRTF, s.AudioDurations, s.TTFC, s.TPOP, s.ICL)
	}
	ds = append(ds, r.PeakMemory)
	for _, d := range r.StageDurations {
		ds = append(ds, d.Dist)
	}
	for _, e := range r.Edges {
		ds = append(ds, e.Handoff)
	}
	bound := 0.0
	for _, d := range ds {
		bound = max(bound, d.ErrorBound)
	}
	return bound
}

func stageKeys(s *StageResult) map[string]any {
	m := map[string]any{
		"stage_id":                s.ID,
		"stage_name":              s.Name,
		"kind":                    s.Kind.String(),
		"num_tokens_out":          s.Tokens,
		"total_audio_duration_s":  s.AudioDuration,
		"total_audio_frames":      s.AudioFrames,
		"total_images":            s.Images,
		"missing_audio_durations": s.MissingAudioDuration,
	}
	for key, d := range map[string]Dist{
		"stage_gen_time_ms": s.GenTime, "postprocess_ms": s.Postprocess,
		"serving_ttft_ms": s.ServingTTFT, "ttft_ms": s.TTFT, "tpot_ms": s.TPOT, "itl_ms": s.ITL,
		"serving_audio_ttfp_ms": s.ServingTTFP, "audio_rtf": s.AudioRTF, "audio_duration_s": s.AudioDurations,
		"ttfc_ms": s.TTFC, "tpop_ms": s.TPOP, "icl_ms": s.ICL,
	} {
		if d.N > 0 {
			putDist(m, key, d)
		}
	}
	return m
}

// putDist writes mean_<key>, median_<key> and p<P>_<key>.
func putDist(m map[string]any, key string, d Dist) {
	m["mean_"+key] = d.Mean
	m["median_"+key] = d.Median
	for _, p := range d.Percentiles {
		m["p"+percentileLabel(p.P)+"_"+key] = p.Value
	}
}

// SaveDetailed adds the `--save-detailed` per-request arrays to a SaveResult object. All
// requests are listed in order, failed ones with an output length of 0; times are in s,
// starts on the run's timeline.
func SaveDetailed(m map[string]any, recs []*record.Record) {
	n := len(recs)
	inputs, outputs := make([]int, n), make([]int, n)
	starts, ttfts := make([]float64, n), make([]float64, n)
	itls, texts, errs := make([][]float64, n), make([]string, n), make([]string, n)
	for i, r := range recs {
		ttft, _ := record.TTFT(r)
		inputs[i], starts[i], ttfts[i] = r.Usage.Prompt, r.Offset.Seconds(), ttft.Seconds()
		itl := record.ITL(r)
		itls[i] = make([]float64, len(itl))
		for j, d := range itl {
			itls[i][j] = d.Seconds()
		}
		texts[i] = r.Text
		if r.OK() {
			outputs[i] = r.Usage.Completion
		} else {
			errs[i] = r.Err.Error()
		}
	}
	m["input_lens"], m["output_lens"], m["start_times"] = inputs, outputs, starts
	m["ttfts"], m["itls"], m["generated_texts"], m["errors"] = ttfts, itls, texts, errs
}

// ResultFilename is vLLM's default file name,
// `{label|backend}-{rate}qps[-concurrency{N}]-{model basename}-{date}.json`.
func ResultFilename(r *Result, info RunInfo) string {
	label := info.Label
	if label == "" {
		label = info.Backend
	}
	conc := ""
	if r.MaxConcurrency > 0 {
		conc = "-concurrency" + strconv.Itoa(r.MaxConcurrency)
	}
	return fmt.Sprintf("%s-%sqps%s-%s-%s.json", label, rateText(r), conc,
		path.Base(info.ModelID), info.Date.Format(dateLayout))
}

// WriteResult encodes a result object as JSON; it fails rather than write NaN or Inf.
func WriteResult(w io.Writer, m map[string]any) error {
	if err := json.NewEncoder(w).Encode(m); err != nil {
		return fmt.Errorf("write result json: %w", err)
	}
	return nil
}

// rateValue is the request rate as saved: a number, or the string "inf" when unbounded.
func rateValue(r *Result) any {
	if r.unboundedRate() {
		return "inf"
	}
	return r.RequestRate
}

// rateText is Python's str(float) of the rate, as in file names: "inf", "1.0", "0.5".
func rateText(r *Result) string {
	if r.unboundedRate() {
		return "inf"
	}
	s := strconv.FormatFloat(r.RequestRate, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
