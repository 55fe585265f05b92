package compare

import (
	"errors"
	"math"
	"testing"
)

// FuzzParseGate feeds --fail-on expressions: a gate parses or fails with a position in
// the expression, never panics, and what parses has a normal key and a finite number
// with a unit only where one may stand.
func FuzzParseGate(f *testing.F) {
	for _, seed := range []string{
		"ttft.p99 > +10%", "requests_failed.rate > 0.01", "ttft.p(99.9) >= -50ms", "serving[chat].p99_e2el_ms < 2s",
		"stage[chat/thinker].mean_stage_gen_time_ms <= +1.5e3us", "ttft{scenario:chat}.p99 > +5%", "ttft{a:}", "> 5",
		"ttft.p99 >> 5", "ttft.p99 > 10%", "x > 1e999", "x > +.%", "x>-e5", "x{ > 1", "x > 5µs", "x > 5\xb5s", "",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		g, err := ParseGate(expr)
		if err != nil {
			var ge *GateError
			if !errors.As(err, &ge) || ge.Col < 1 || ge.Col > max(len(expr), 1) || ge.Expr != expr {
				t.Fatalf("ParseGate(%q): %v is not a GateError inside the expression", expr, err)
			}
			return
		}
		if g.Source != expr || g.Key == "" || math.IsNaN(g.Value) || math.IsInf(g.Value, 0) {
			t.Fatalf("ParseGate(%q) = %+v", expr, g)
		}
		if g.TimeUnit != "" && (g.Mode == Relative || toMillis[g.TimeUnit] == 0) {
			t.Fatalf("ParseGate(%q): unit %q with mode %d", expr, g.TimeUnit, g.Mode)
		}
		if normalizeKey(g.Key) != g.Key {
			t.Fatalf("ParseGate(%q): key %q is not normal (%q)", expr, g.Key, normalizeKey(g.Key))
		}
	})
}
