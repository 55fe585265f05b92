package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/record"
)

// Metric names of `--percentile-metrics`, in the order omnik's default selection uses.
// The audio ones print in the order the user gives; the others have fixed places.
var metricNames = []string{
	"ttft", "tpot", "tpop", "itl", "e2el", "ttfc", "tpoc", "icl",
	"audio_ttfp", "audio_rtf", "audio_duration", "audio_underrun",
}

// ReferenceMetrics is the `vllm bench serve` default of `--percentile-metrics`.
const ReferenceMetrics = "ttft,tpot,itl"

// DefaultPercentiles is the default of `--metric-percentiles`.
const DefaultPercentiles = "99"

// ParseMetrics parses a `--percentile-metrics` list ("ttft,tpot,e2el").
func ParseMetrics(s string) ([]string, error) {
	var out []string
	for _, m := range strings.Split(s, ",") {
		m = strings.TrimSpace(m)
		if !slices.Contains(metricNames, m) {
			return nil, fmt.Errorf("percentile metric %q: not one of %s", m, strings.Join(metricNames, ", "))
		}
		out = append(out, m)
	}
	return out, nil
}

// ParsePercentiles parses a `--metric-percentiles` list ("50,90,99.9").
func ParsePercentiles(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		p, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || p < 0 || p > 100 || math.IsNaN(p) {
			return nil, fmt.Errorf("metric percentile %q: want a number in [0, 100]", f)
		}
		out = append(out, p)
	}
	return out, nil
}

// SLO is one `--goodput KEY:ms` objective: a request is good only if its Metric is at most Max.
type SLO struct {
	Metric string        `json:"metric"`
	Max    time.Duration `json:"max_ns"`
}

// goodputValue reads an SLO metric of one successful request; ok is false when the
// request has no value, which fails the SLO (latest upstream: an unmeasured TPOT is not
// good). A request without text or audio has a TTFT or AUDIO_TTFP of 0 there, which
// meets any SLO, as upstream judges it.
var goodputValue = map[string]func(r *record.Record) (time.Duration, bool){
	"ttft":       orZero(record.TTFT),
	"tpot":       record.TPOT,
	"e2el":       func(r *record.Record) (time.Duration, bool) { return record.E2EL(r), true },
	"ttfc":       record.TTFC,
	"audio_ttfp": orZero(record.AudioTTFP),
}

func orZero(f func(*record.Record) (time.Duration, bool)) func(*record.Record) (time.Duration, bool) {
	return func(r *record.Record) (time.Duration, bool) {
		v, _ := f(r)
		return v, true
	}
}

// isGood reports whether a successful request meets every SLO.
func isGood(r *record.Record, slos []SLO) bool {
	for _, s := range slos {
		v, ok := goodputValue[s.Metric](r)
		if !ok || v > s.Max {
			return false
		}
	}
	return true
}

// ParseGoodput parses `--goodput` arguments ("ttft:500", "e2el:20000"), values in ms.
// `audio_ttft`, the key latest upstream reads, is accepted as `audio_ttfp`.
func ParseGoodput(args []string) ([]SLO, error) {
	var out []SLO
	for _, a := range args {
		key, val, ok := strings.Cut(a, ":")
		if key == "audio_ttft" {
			key = "audio_ttfp"
		}
		if _, known := goodputValue[key]; !ok || !known {
			return nil, fmt.Errorf("goodput %q: want KEY:ms with KEY one of ttft, tpot, e2el, ttfc, audio_ttfp (or audio_ttft)", a)
		}
		ms, err := strconv.ParseFloat(val, 64)
		// A bound past time.Duration's range would wrap around to a negative one.
		if err != nil || ms < 0 || math.IsNaN(ms) || ms > float64(math.MaxInt64/int64(time.Millisecond)) {
			return nil, fmt.Errorf("goodput %q: value must be a non-negative number of ms, at most about 292 years", a)
		}
		out = append(out, SLO{Metric: key, Max: time.Duration(ms * float64(time.Millisecond))})
	}
	return out, nil
}

// Options configure an Accumulator. The zero value is omnik's default.
type Options struct {
	// Percentiles of `--metric-percentiles`; nil means [99]. They are fixed at aggregation
	// because the printed blocks and the result file must agree.
	Percentiles []float64
	Goodput     []SLO // `--goodput`; none means no goodput line and a null request_goodput
	// ContinuityThreshold is the largest underrun of a continuous stream; 0 means 100 ms
	// (VLLM_OMNI_BENCH_AUDIO_CONTINUITY_THRESHOLD_S).
	ContinuityThreshold time.Duration
	MaxConcurrency      int     // printed when > 0
	RequestRate         float64 // configured RPS; 0 or +Inf means unbounded ("inf")
	// TrendBudget is how many values each distribution keeps for exact statistics before
	// an HDR histogram takes over (Dist.ErrorBound): the run's metrics' budget, so rows and
	// thresholds switch together. 0 means metrics.DefaultTrendBudget.
	TrendBudget int
}

func (o Options) percentiles() []float64 {
	if o.Percentiles == nil {
		return []float64{99}
	}
	return o.Percentiles
}

func (o Options) continuityThreshold() time.Duration {
	if o.ContinuityThreshold == 0 {
		return 100 * time.Millisecond
	}
	return o.ContinuityThreshold
}
