package servermetrics

import "strings"

// Family prefixes: vLLM's engine metrics, vLLM-Omni's pipeline metrics and their
// older spelling ("vllm:omni_audio_ttfp_s" is "vllm_omni:audio_ttfp_s").
const (
	prefixVLLM       = "vllm:"
	prefixOmni       = "vllm_omni:"
	prefixOmniLegacy = "vllm:omni_"
)

// canonical is the name a family is known by: the legacy omni prefix is read as the new
// one, so thresholds and the block name one family whichever the server speaks.
func canonical(name string) string {
	if rest, ok := strings.CutPrefix(name, prefixOmniLegacy); ok {
		return prefixOmni + rest
	}
	return name
}

// recognised reports whether a family is one of vLLM's or vLLM-Omni's, which the block
// shows and the result file keeps without being asked.
func recognised(name string) bool {
	return strings.HasPrefix(name, prefixVLLM) || strings.HasPrefix(name, prefixOmni)
}

// averaged reports whether a gauge's series are averaged rather than summed when
// several make one value (replicas' KV-cache usage, not their queue lengths).
func averaged(name string) bool {
	for _, s := range []string{"_perc", "_percent", "_ratio", "_usage", "_utilization", "_rtf"} {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// Scale is what a family's values are multiplied by where they are shown (the block,
// the HTML report): seconds become milliseconds, as every client time is. unit is "ms"
// or "" for a plain number.
func Scale(name string) (factor float64, unit string) {
	switch {
	case strings.HasSuffix(name, "_seconds"), strings.HasSuffix(name, "_s"):
		return 1000, "ms"
	}
	return 1, ""
}

// withUnit is a label with Scale's unit in brackets: "TTFT (ms)".
func withUnit(label, unit string) string {
	if unit == "" {
		return label
	}
	return label + " (" + unit + ")"
}

// ShortName is a vLLM or vLLM-Omni family's name without its prefix
// ("num_requests_waiting"); ok is false for another family.
func ShortName(family string) (name string, ok bool) {
	for _, p := range []string{prefixOmni, prefixVLLM} {
		if rest, ok := strings.CutPrefix(family, p); ok {
			return rest, true
		}
	}
	return family, false
}

// Selection spells a row's label selection: "stage=talker", pairs sorted by name.
func Selection(sel map[string]string) string {
	parts := make([]string, 0, len(sel))
	for _, k := range sortedKeys(sel) {
		parts = append(parts, k+"="+sel[k])
	}
	return strings.Join(parts, ",")
}

// twin is a client metric and the server families that measure the same thing, the
// first the server has being used.
type twin struct {
	label    string   // the row label: "TTFT"
	client   string   // the omni Trend metric: "ttft"
	families []string // canonical server families, in order of preference
}

// twins are the reconciliation table's rows. vLLM-Omni's pipeline-level latency comes
// before the engine's, whose TTFT is the first stage's.
var twins = []twin{
	{"TTFT", "ttft", []string{"vllm:time_to_first_token_seconds"}},
	// The engine's per-request TPOT; its older time_per_output_token_seconds was per token,
	// the client's ITL.
	{"TPOT", "tpot", []string{"vllm:request_time_per_output_token_seconds"}},
	{"ITL", "itl", []string{"vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds"}},
	{"AUDIO_TTFP", "audio_ttfp", []string{"vllm_omni:audio_ttfp_s"}},
	{"AUDIO_RTF", "audio_rtf", []string{"vllm_omni:audio_rtf"}},
	{"E2EL", "e2el", []string{"vllm_omni:e2e_request_latency_s", "vllm:e2e_request_latency_seconds"}},
}
