package compare

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// failuresKey is the omni section's count of failed requests by error kind, beside the
// blocks.
const failuresKey = "failures_by_error"

// configFields are numbers of a Serving block that say how the run was configured,
// not what it measured (whether two runs' load compares is the warnings' business), or
// who the stage is.
var configFields = map[string]bool{
	"request_rate": true, "burstiness": true, "max_concurrency": true, "num_prompts": true,
	"rtfx": true, "percentile_error_bound": true, "stage_id": true,
}

// scalarOrder is the Serving block's order of its single numbers, then a stage's.
var scalarOrder = []string{
	"completed", "failed", failuresKey, "interrupted", "duration", "request_throughput", "request_goodput",
	"output_throughput", "total_token_throughput", "max_output_tokens_per_s", "max_concurrent_requests",
	"total_input_tokens", "total_output_tokens", "num_tokens_out", "total_audio_duration_s", "total_audio_frames",
	"audio_throughput", "audio_continuity_ok_rate", "audio_underrun_measured", "missing_audio_durations",
	"total_images", "image_throughput", "average_pixels_per_image",
}

// stemOrder is the order of the distributions (mean_, median_, pN_ + stem).
var stemOrder = []string{
	"stage_gen_time_ms", "postprocess_ms", "e2el_ms", "ttft_ms", "serving_ttft_ms", "tpot_ms", "itl_ms",
	"ttfc_ms", "tpop_ms", "icl_ms", "audio_ttfp_ms", "serving_audio_ttfp_ms", "audio_rtf", "audio_duration_s",
	"audio_underrun_s", "image_generation_ms", "denoise_step_latency_ms",
}

var (
	higherFields = set("completed", "request_throughput", "request_goodput", "output_throughput",
		"total_token_throughput", "max_output_tokens_per_s", "audio_throughput", "image_throughput",
		"audio_continuity_ok_rate")
	lowerFields = set("failed", "interrupted", "missing_audio_durations", "audio_rtf", "audio_underrun_s")
)

// distField splits "p99_ttft_ms" into its stem and the aggregation's rank: mean, then
// median, then percentiles.
var distField = regexp.MustCompile(`^(mean|median|p(\d+(?:\.\d+)?))_(.+)$`)

// stageName is a stage name that can stand in a key as it is; others stand as the
// stage's id, as do names two stages share.
var stageName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]*$`)

// servingStats are the numbers of a Serving block (scenario "" for the whole run's),
// its omnik additions and its stages'.
func servingStats(scenario string, block map[string]any) []Stat {
	scope := "serving"
	if scenario != "" {
		scope += "[" + scenario + "]"
	}
	g := Group{Section: Serving, Scenario: scenario}
	extra, _ := block["omnik"].(map[string]any)
	bound, _ := extra["percentile_error_bound"].(float64)
	stats := append(fieldStats(g, scope, block, bound, 0), fieldStats(g, scope, extra, bound, 0)...)
	stages, _ := extra["stages"].([]any)
	return append(stats, stageStats(scenario, stages, bound)...)
}

func stageStats(scenario string, stages []any, bound float64) []Stat {
	names := map[string]int{}
	for _, s := range stages {
		st, _ := s.(map[string]any)
		name, _ := st["stage_name"].(string)
		names[name]++
	}
	var out []Stat
	for _, s := range stages {
		st, _ := s.(map[string]any)
		name, _ := st["stage_name"].(string)
		id, _ := st["stage_id"].(float64)
		label := name
		if !stageName.MatchString(name) || names[name] > 1 {
			label = strconv.Itoa(int(id))
		}
		scope := label
		if scenario != "" {
			scope = scenario + "/" + label
		}
		out = append(out, fieldStats(Group{Section: Stage, Scenario: scenario, Stage: label}, "stage["+scope+"]", st, bound, int(id))...)
	}
	return out
}

// fieldStats are the numbers among fields; strings (date, model_id, label), lists and
// objects are skipped.
func fieldStats(g Group, scope string, fields map[string]any, bound float64, stage int) []Stat {
	var out []Stat
	for name, v := range fields {
		if f, ok := v.(float64); ok && !configFields[name] {
			out = append(out, fieldStat(g, scope+"."+name, name, f, bound, stage))
		}
	}
	return out
}

func fieldStat(g Group, key, name string, v, bound float64, stage int) Stat {
	s := Stat{Key: key, Group: g, Value: v, order: order{stage: stage, field: rank(scalarOrder, name), name: name}}
	stem := name
	if m := distField.FindStringSubmatch(name); m != nil {
		stem = m[3]
		s.order.field, s.order.name = len(scalarOrder)+rank(stemOrder, stem), stem
		switch m[1] {
		case "mean":
			s.order.stat = -2
		case "median":
			s.order.stat, s.ErrorBound = -1, bound
		default:
			s.order.stat, _ = strconv.ParseFloat(m[2], 64)
			s.ErrorBound = bound
		}
	}
	s.Unit = fieldUnit(stem)
	switch {
	case higherFields[name]:
		s.Better = Higher
	case lowerFields[name] || lowerFields[stem] || s.Unit == Milliseconds:
		s.Better = Lower
	}
	return s
}

// failurePrefix starts the keys of the failed requests of each error kind.
const failurePrefix = "serving." + failuresKey + "."

// failureStat is the count of failed requests of one error kind, under the whole run's
// block.
func failureStat(kind string, n float64) Stat {
	s := fieldStat(Group{Section: Serving}, failurePrefix+kind, failuresKey, n, 0, 0)
	s.order.sub, s.Better, s.zeroIfAbsent = kind, Lower, true
	return s
}

// fieldUnit reads the unit off a field's name, as vLLM names them.
func fieldUnit(stem string) Unit {
	switch {
	case strings.HasSuffix(stem, "_ms"):
		return Milliseconds
	case stem == "duration" || strings.HasSuffix(stem, "_s") && !strings.HasSuffix(stem, "_per_s"):
		return Seconds
	}
	return None
}

// rank is name's index in known, len(known) for another.
func rank(known []string, name string) int {
	if i := slices.Index(known, name); i >= 0 {
		return i
	}
	return len(known)
}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
