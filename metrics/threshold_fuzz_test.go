package metrics

import (
	"encoding/json"
	"errors"
	"strconv"
	"testing"
)

// FuzzParseThreshold: the parser never panics, failures are *ThresholdError, and a
// parsed threshold's canonical form parses back to the same threshold.
func FuzzParseThreshold(f *testing.F) {
	for _, s := range []string{"ttfc.p99 < 900", "requests_failed.rate < 0.01", "ttft{modality:audio}.avg<700",
		"ttft{stage: 'thinker', modality:\"audio\"}.p(99.9) >= 1e3", "vus.value === 3", "requests.count != -1.5",
		"ttfc.p99 <", "ttfc{a:b.avg<1", "ttfc.p(1", "x.avg<1", "ttfc.med == .5", "ttfc.p100>0", "ttfc{}.avg<1"} {
		f.Add(s)
	}
	reg := testRegistry()
	f.Fuzz(func(t *testing.T, expr string) {
		ths, err := ParseThresholds(nil, []string{expr}, reg.Get)
		if err != nil {
			var te *ThresholdError
			if !errors.As(err, &te) || te.Col < 1 || te.Col > max(len(expr), 1) {
				t.Fatalf("error %v: not a *ThresholdError with a column inside the expression", err)
			}
			return
		}
		again, err := ParseThresholds(nil, []string{ths[0].String()}, reg.Get)
		if err != nil {
			t.Fatalf("canonical %q of %q does not parse: %v", ths[0].String(), expr, err)
		}
		if again[0].String() != ths[0].String() {
			t.Fatalf("round trip %q -> %q", ths[0].String(), again[0].String())
		}
		// The same expression inside a k6-style object must parse too.
		key := SubMetricName(ths[0].Metric.Name, ths[0].Selector)
		raw, _ := json.Marshal(map[string][]string{key: {ths[0].Stat.String() + string(ths[0].Op) + " " + strconv.FormatFloat(ths[0].Value, 'g', -1, 64)}})
		if _, err := ParseThresholds(raw, nil, reg.Get); err != nil {
			t.Fatalf("k6 form %s of %q: %v", raw, expr, err)
		}
	})
}
