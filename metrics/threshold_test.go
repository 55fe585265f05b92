package metrics

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func testRegistry() *Registry {
	r := NewRegistry()
	RegisterBuiltins(r)
	r.MustNew("ttfc", Trend, Time)
	r.MustNew("ttft", Trend, Time)
	r.MustNew("requests_failed", Rate, Default)
	r.MustNew("requests", Counter, Default)
	return r
}

func TestParseThresholdsBothSpellingsAgree(t *testing.T) {
	t.Parallel()
	reg := testRegistry()
	obj := `{"ttfc": ["p(99) < 900"], "ttft{stage:thinker}": [{"threshold":"p(95)<=500","abortOnFail":true,"delayAbortEval":"10s"}],
	  "requests_failed": "rate < 0.01", "vus": ["value === 3", "max!=4"], "requests": ["count>=1", "rate > 0.5"]}`
	short := `["ttfc.p99 < 900", {"threshold": "ttft{ stage : 'thinker' }.p95 <= 500", "abortOnFail": true, "delayAbortEval": 10000},
	  "requests_failed.rate<0.01", "vus.value == 3", "vus.max != 4", "requests.count >= 1", "requests.rate>0.5"]`
	a, err := ParseThresholds(json.RawMessage(obj), nil, reg.Get)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ParseThresholds(json.RawMessage(short), nil, reg.Get)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(b) || len(a) != 7 {
		t.Fatalf("got %d and %d thresholds, want 7", len(a), len(b))
	}
	for i := range a {
		if a[i].String() != b[i].String() || a[i].AbortOnFail != b[i].AbortOnFail || a[i].DelayAbortEval != b[i].DelayAbortEval {
			t.Errorf("%d: %v (abort %v %v) != %v (abort %v %v)", i, a[i], a[i].AbortOnFail, a[i].DelayAbortEval,
				b[i], b[i].AbortOnFail, b[i].DelayAbortEval)
		}
	}
	if got := a[1].String(); got != "ttft{stage:thinker}.p(95) <= 500" || a[1].DelayAbortEval != 10*time.Second {
		t.Errorf("selector threshold = %s delay %v", got, a[1].DelayAbortEval)
	}
}

func TestParseThresholdsMixesOptionsAndCLI(t *testing.T) {
	t.Parallel()
	ths, err := ParseThresholds(json.RawMessage(`{"ttfc":["avg<1"]}`), []string{"ttft{modality:audio}.avg<700", "ttfc.p99.9 < 2"}, testRegistry().Get)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, th := range ths {
		got = append(got, th.String())
	}
	want := "ttfc.avg < 1|ttft{modality:audio}.avg < 700|ttfc.p(99.9) < 2"
	if strings.Join(got, "|") != want {
		t.Errorf("got %s, want %s", strings.Join(got, "|"), want)
	}
	for _, raw := range []string{"", "null", " "} {
		if ths, err := ParseThresholds(json.RawMessage(raw), nil, testRegistry().Get); err != nil || len(ths) != 0 {
			t.Errorf("%q: %v, %v", raw, ths, err)
		}
	}
}

func TestParseThresholdsLastDuplicateKeyWins(t *testing.T) {
	t.Parallel()
	ths, err := ParseThresholds(json.RawMessage(`{"ttfc":["avg<1"],"ttft":["avg<2"],"ttfc":["avg<3"]}`), nil, testRegistry().Get)
	if err != nil || len(ths) != 2 || ths[0].String() != "ttfc.avg < 3" {
		t.Fatalf("got %v, %v", ths, err)
	}
}

func TestParseThresholdErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw, cli string
		want     string
	}{
		{cli: "ttfc.p99 <", want: `threshold "ttfc.p99 <" at col 10: expected a number`},
		{cli: "ttfc.p99 < 9x", want: `threshold "ttfc.p99 < 9x" at col 13: unexpected "x" after the number`},
		{cli: "ttfc.p99 ~ 9", want: `at col 10: expected an operator`},
		{cli: "ttfc p99 < 9", want: `at col 5: expected '.' and a stat`},
		{cli: "ttfc.p101 < 9", want: `at col 7: percentile "101" must be a number in [0,100]`},
		{cli: "ttfc.p(9 < 9", want: `missing ')'`},
		{cli: "ttfc.mean < 9", want: `at col 6: unknown aggregation "mean"`},
		{cli: "nope.avg < 9", want: `threshold "nope.avg < 9" at col 1: unknown metric "nope"`},
		{cli: "ttfc.rate < 9", want: `at col 6: ttfc is a trend: rate is not one of its aggregations (avg, min, max, med, p(N), count)`},
		{cli: "requests.avg < 9", want: `requests is a counter: avg is not`},
		{cli: "vus.rate < 9", want: `vus is a gauge`},
		{cli: "requests_failed.count < 9", want: `requests_failed is a rate`},
		{cli: "ttfc{stage}.avg < 9", want: `at col 6: selector pair "stage": want key:value`},
		{cli: "ttfc{a:b.avg < 9", want: `missing '}'`},
		{cli: "9ttfc.avg < 9", want: `at col 1: expected a metric name`},
		{cli: "", want: `threshold "" at col 1: expected a metric name`},
		{raw: `{"ttfc":["p(99) <"]}`, want: `threshold "p(99) <" on "ttfc" at col 7: expected a number`},
		{raw: `{"ttfc":["rate < 1"]}`, want: `on "ttfc" at col 1: ttfc is a trend`},
		{raw: `{"nope{a:b}":["avg < 1"]}`, want: `threshold "nope{a:b}" at col 1: unknown metric "nope"`},
		{raw: `{"ttfc":[{"threshold":"avg<1","delayAbortEval":"soon"}]}`, want: `delayAbortEval "soon"`},
		{raw: `{"ttfc":[{"threshold":"avg<1","abortOnFial":true}]}`, want: `unknown field "abortOnFial"`},
		{raw: `{"ttfc":[{"threshold":"avg<1","delayAbortEval":"-1s"}]}`, want: `negative`},
		{raw: `{"ttfc":[7]}`, want: `want an expression`},
		{raw: `"ttfc.avg<1"`, want: `want an object or a list`},
		{raw: `[1]`, want: `want an expression`},
	}
	for _, tt := range tests {
		t.Run(tt.cli+tt.raw, func(t *testing.T) {
			t.Parallel()
			var cli []string
			if tt.raw == "" {
				cli = []string{tt.cli}
			}
			_, err := ParseThresholds(json.RawMessage(tt.raw), cli, testRegistry().Get)
			var te *ThresholdError
			if !errors.As(err, &te) {
				t.Fatalf("error %v is not a *ThresholdError", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestParseThresholdsReportsEveryError(t *testing.T) {
	t.Parallel()
	_, err := ParseThresholds(json.RawMessage(`["ttfc.avg <", "nope.avg<1"]`), []string{"ttfc.x<1"}, testRegistry().Get)
	if n := strings.Count(err.Error(), "threshold "); n != 3 {
		t.Errorf("got %d errors, want 3: %v", n, err)
	}
}

func snapWith(elapsed time.Duration, sinks map[string]Sink) *Snapshot {
	return NewSnapshot(elapsed, sinks)
}

func TestEvaluateThresholds(t *testing.T) {
	t.Parallel()
	reg := testRegistry()
	ths, err := ParseThresholds(json.RawMessage(`{
		"ttfc": ["p(50) < 25", "max < 25"],
		"ttft{stage:thinker}": [{"threshold":"avg<1","abortOnFail":true,"delayAbortEval":"10s"}],
		"requests": ["rate >= 2"],
		"requests_failed": [{"threshold":"rate<0.5","abortOnFail":true}]}`), nil, reg.Get)
	if err != nil {
		t.Fatal(err)
	}
	sinks := map[string]Sink{
		"ttfc":            add(NewSink(Trend), 10, 20, 30),
		"requests":        add(NewSink(Counter), 1, 1, 1, 1),
		"requests_failed": add(NewSink(Rate), 0, 0, 1),
	}
	ev := EvaluateThresholds(ths, snapWith(2*time.Second, sinks))
	type verdict struct {
		ok, noData bool
		observed   float64
	}
	want := []verdict{{true, false, 20}, {false, false, 30}, {false, true, 0}, {true, false, 2}, {true, false, 1.0 / 3}}
	for i, r := range ev.Results {
		if got := (verdict{r.OK, r.NoData, r.Observed}); got != want[i] {
			t.Errorf("%s: got %+v, want %+v", r.Threshold, got, want[i])
		}
	}
	if ev.Passed() || len(ev.Failed()) != 2 || ev.Abort != nil {
		t.Errorf("passed=%v failed=%d abort=%v; want false, 2, false (abort delayed to 10s)", ev.Passed(), len(ev.Failed()), ev.Abort)
	}
	if ab := EvaluateThresholds(ths, snapWith(10*time.Second, sinks)).Abort; ab == nil || ab.Threshold.Metric.Name != "ttft" {
		t.Error("no abort once delayAbortEval has passed")
	}
	sinks["requests_failed"] = add(NewSink(Rate), 1, 1, 1)
	if EvaluateThresholds(ths, snapWith(time.Second, sinks)).Abort == nil {
		t.Error("no abort for an abortOnFail threshold without delay")
	}
}

func TestEmptyCounterThresholdsCountZeroOthersHaveNoData(t *testing.T) {
	t.Parallel()
	reg := testRegistry()
	ths, err := ParseThresholds(nil, []string{
		"dropped_iterations.count == 0", "dropped_iterations.rate < 1", "requests{scenario:a}.count < 1",
		"requests.count > 0", "ttfc.p99 < 900", "requests_failed.rate < 0.1", "vus.value < 10"}, reg.Get)
	if err != nil {
		t.Fatal(err)
	}
	// requests{scenario:a} is registered as a sub-metric (its sink exists) but got nothing;
	// dropped_iterations, ttfc, requests_failed and vus have no sink at all.
	sinks := map[string]Sink{"requests{scenario:a}": NewSink(Counter)}
	ev := EvaluateThresholds(ths, snapWith(2*time.Second, sinks))
	want := []struct{ ok, noData bool }{{true, false}, {true, false}, {true, false}, {false, false}, {false, true}, {false, true}, {false, true}}
	for i, r := range ev.Results {
		if r.OK != want[i].ok || r.NoData != want[i].noData || r.Observed != 0 {
			t.Errorf("%s: ok=%v noData=%v observed=%g, want ok=%v noData=%v observed=0",
				r.Threshold, r.OK, r.NoData, r.Observed, want[i].ok, want[i].noData)
		}
	}
}
