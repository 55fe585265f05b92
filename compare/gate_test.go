package compare

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/metrics"
)

func TestParseGate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		expr string
		want Gate
	}{
		{"requests_failed.rate > 0.01", Gate{Key: "requests_failed.rate", Op: metrics.OpGT, Mode: Absolute, Value: 0.01}},
		{"ttft.p99 > +50", Gate{Key: "ttft.p99", Op: metrics.OpGT, Mode: Change, Value: 50}},
		{"ttft.p(99) > +10%", Gate{Key: "ttft.p99", Op: metrics.OpGT, Mode: Relative, Value: 10}},
		{"serving.request_throughput < -5%", Gate{Key: "serving.request_throughput", Op: metrics.OpLT, Mode: Relative, Value: -5}},
		{"  e2el.p(99.9)>=2s ", Gate{Key: "e2el.p99.9", Op: metrics.OpGE, Mode: Absolute, Value: 2, TimeUnit: "s"}},
		{"ttft.p95 <= -250us", Gate{Key: "ttft.p95", Op: metrics.OpLE, Mode: Change, Value: -250, TimeUnit: "us"}},
		{"ttft.med < 1.5e2µs", Gate{Key: "ttft.med", Op: metrics.OpLT, Mode: Absolute, Value: 150, TimeUnit: "µs"}},
		{"ttft{scenario:chat}.p99 > +20ms", Gate{Key: "ttft{scenario:chat}.p99", Op: metrics.OpGT, Mode: Change, Value: 20, TimeUnit: "ms"}},
		// A selector may hold what ends a key elsewhere.
		{"ttft{label:a > b}.p(99) > 1", Gate{Key: "ttft{label:a > b}.p99", Op: metrics.OpGT, Mode: Absolute, Value: 1}},
		{"serving[chat].p99_e2el_ms > +5%", Gate{Key: "serving[chat].p99_e2el_ms", Op: metrics.OpGT, Mode: Relative, Value: 5}},
		{"stage[chat/thinker].mean_stage_gen_time_ms >= +.5", Gate{Key: "stage[chat/thinker].mean_stage_gen_time_ms", Op: metrics.OpGE, Mode: Change, Value: 0.5}},
		{"dropped_iterations.count > 0", Gate{Key: "dropped_iterations.count", Op: metrics.OpGT, Mode: Absolute, Value: 0}},
	} {
		got, err := ParseGate(tc.expr)
		tc.want.Source = tc.expr
		if err != nil || got != tc.want {
			t.Errorf("ParseGate(%q) = %+v, %v; want %+v", tc.expr, got, err, tc.want)
		}
	}
}

func TestParseGateErrorsSayWhere(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		expr   string
		col    int
		reason string
	}{
		{"", 1, "expected a statistic's key"},
		{"> 5", 1, "expected a statistic's key"},
		{"ttft.p99", 8, "expected an operator"},
		{"ttft.p99 == 5", 10, "expected an operator"},
		{"ttft.p99 >> 5", 11, "expected a number"},
		{"ttft.p99 >", 10, "expected a number"},
		{"ttft.p99 > 10%", 14, "takes a sign"},
		{"ttft.p99 > +10 %", 16, "unexpected \"%\" after the value"},
		{"ttft.p99 > 5min", 13, `unknown unit "min"`},
		{"ttft.p99 > +5%ms", 14, `unknown unit "%ms"`},
		{"ttft.p99 > 1.2.3", 12, "expected a number"},
		{"ttft.p99 > 1e999", 12, "out of range"},
		{"ttft{scenario:chat.p99 > 1", 5, "missing '}'"},
		{"ttft.p99 > 5 6", 14, `unexpected "6"`},
	} {
		_, err := ParseGate(tc.expr)
		var ge *GateError
		if !errors.As(err, &ge) || ge.Col != tc.col || !strings.Contains(ge.Reason, tc.reason) {
			t.Errorf("ParseGate(%q) = %v; want col %d: %q", tc.expr, err, tc.col, tc.reason)
			continue
		}
		if engine.ExitCodeOf(err) != engine.ExitInvalidConfig || !strings.Contains(err.Error(), tc.expr) {
			t.Errorf("ParseGate(%q): %v is not a usage error naming the expression", tc.expr, err)
		}
	}
}

// judged is a comparison of hand-made statistics.
func judged() *Comparison {
	in := func(stats ...Stat) *Input {
		m := map[string]Stat{}
		for _, s := range stats {
			m[s.Key] = s
		}
		return &Input{Stats: m}
	}
	ms := func(key string, v float64) Stat { return Stat{Key: key, Value: v, Unit: Milliseconds, Better: Lower} }
	plain := func(key string, v float64) Stat { return Stat{Key: key, Value: v} }
	base := in(ms("ttft.p99", 100), plain("serving.request_throughput", 10), plain("requests_failed.rate", 0),
		Stat{Key: "serving.duration", Value: 20, Unit: Seconds}, ms("audio_ttfp.p99", 50), plain("serving.failed", 0))
	next := in(ms("ttft.p99", 115), plain("serving.request_throughput", 9.4), plain("requests_failed.rate", 0.02),
		Stat{Key: "serving.duration", Value: 21, Unit: Seconds}, ms("ttfc.p99", 80), plain("serving.failed", 0))
	return Compare(base, next)
}

func TestJudge(t *testing.T) {
	t.Parallel()
	c := judged()
	for _, tc := range []struct {
		expr     string
		crossed  bool
		noData   bool
		observed float64
	}{
		{"ttft.p99 > +10%", true, false, 15},
		{"ttft.p99 > +20%", false, false, 15},
		{"ttft.p99 > +15%", false, false, 15},
		{"ttft.p99 >= +15%", true, false, 15},
		{"ttft.p99 > +10", true, false, 15},
		{"ttft.p99 > 120", false, false, 115},
		{"ttft.p99 > 0.1s", true, false, 115},
		{"ttft.p99 > +20000us", false, false, 15},
		{"ttft.p(99) < 200ms", true, false, 115},
		{"serving.request_throughput < -5%", true, false, -6},
		{"serving.request_throughput < -0.5", true, false, -0.6},
		{"serving.duration > 20500ms", true, false, 21},
		{"serving.duration > +2s", false, false, 1},
		// From a zero base any increase is +Inf%; no change is 0%.
		{"requests_failed.rate > +1000%", true, false, math.Inf(1)},
		{"requests_failed.rate > 0.01", true, false, 0.02},
		{"serving.failed > +0%", false, false, 0},
		// A change needs both runs, NEW's value only NEW.
		{"audio_ttfp.p99 > +10%", true, true, 0},
		{"ttfc.p99 > +10%", true, true, 0},
		{"ttfc.p99 > 100", false, false, 80},
		{"audio_ttfp.p99 > 100", true, true, 0},
		// Built-in metrics neither run has: a counter counted none; a trend has no data.
		{"dropped_iterations.count > 0", false, false, 0},
		{"dropped_iterations.rate > +0%", false, false, 0},
		{"stage_postprocess.p99 > 5", true, true, 0},
		{"serving.failures_by_error.timeout > 0", false, false, 0},
	} {
		g, err := ParseGate(tc.expr)
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Judge([]Gate{g})
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		r := res[0]
		near := r.Observed == tc.observed || math.Abs(r.Observed-tc.observed) < 1e-9
		if r.Crossed != tc.crossed || r.NoData != tc.noData || !tc.noData && !near {
			t.Errorf("%s: crossed %v, no data %v, observed %v; want %v, %v, %v", tc.expr, r.Crossed, r.NoData, r.Observed, tc.crossed, tc.noData, tc.observed)
		}
	}
}

func TestJudgeUsageErrors(t *testing.T) {
	t.Parallel()
	c := judged()
	for _, tc := range []struct{ expr, want string }{
		{"ttft.p999 > 1", "neither run has ttft.p999 (did you mean ttft.p99"},
		{"servng.request_throughput < -5%", "did you mean serving.request_throughput?"},
		{"nothing_like_it.avg > 1", "omnik compare prints every key"},
		{"serving.request_throughput < 5s", `serving.request_throughput is not a time; write the value without "s"`},
		{"vus.p99 > 1", "neither run has vus.p99"}, // a gauge has no percentiles
		{"serving.failures_by_error.timout > 0", "neither run has serving.failures_by_error.timout"},
	} {
		g, err := ParseGate(tc.expr)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Judge([]Gate{g})
		if err == nil || !strings.Contains(err.Error(), tc.want) || engine.ExitCodeOf(err) != engine.ExitInvalidConfig {
			t.Errorf("%s: %v; want a usage error with %q", tc.expr, err, tc.want)
		}
	}
}
