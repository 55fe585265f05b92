package metrics

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

func add(s Sink, vals ...float64) Sink {
	t0 := time.Unix(1000, 0)
	for i, v := range vals {
		s.Add(Sample{Value: v, Time: t0.Add(time.Duration(i) * time.Millisecond)})
	}
	return s
}

func mustStat(t testing.TB, name string) Stat {
	t.Helper()
	st, err := ParseStat(name)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestSinkValuesAgainstHandComputed(t *testing.T) {
	t.Parallel()
	seq101 := make([]float64, 101)
	for i := range seq101 {
		seq101[i] = float64(i + 1)
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(seq101), func(i, j int) { seq101[i], seq101[j] = seq101[j], seq101[i] })
	tests := []struct {
		name    string
		kind    Kind
		vals    []float64
		elapsed time.Duration
		want    map[string]float64
	}{
		{"counter", Counter, []float64{1, 2, 3.5}, 2 * time.Second, map[string]float64{"count": 6.5, "rate": 3.25}},
		{"gauge", Gauge, []float64{5, 1, 9, 4}, 0, map[string]float64{"value": 4, "min": 1, "max": 9}},
		{"rate", Rate, []float64{1, 0, 2, 0, 0}, 0, map[string]float64{"rate": 0.4, "passes": 2, "fails": 3}},
		{"trend one sample", Trend, []float64{7}, 0, map[string]float64{
			"count": 1, "avg": 7, "min": 7, "max": 7, "med": 7, "p(0)": 7, "p(99)": 7, "p(100)": 7}},
		{"trend two samples", Trend, []float64{20, 10}, 0, map[string]float64{
			"avg": 15, "med": 15, "p(90)": 19, "p(99)": 19.9, "p(0)": 10, "p(100)": 20}},
		{"trend 101 samples", Trend, seq101, 0, map[string]float64{
			"count": 101, "avg": 51, "min": 1, "max": 101, "med": 51, "p(90)": 91, "p(99.9)": 100.9, "p(0.5)": 1.5}},
		// numpy.percentile([15, 20, 35, 40, 50], 40) == 29.0; q=25 of [1,2,3,4] == 1.75.
		{"trend numpy docs vector", Trend, []float64{50, 15, 40, 20, 35}, 0, map[string]float64{"p(40)": 29, "med": 35}},
		{"trend even median", Trend, []float64{4, 1, 3, 2}, 0, map[string]float64{"med": 2.5, "p(25)": 1.75, "p(90)": 3.7}},
		{"trend negatives", Trend, []float64{-3, -1, 2}, 0, map[string]float64{"med": -1, "p(25)": -2, "avg": -2.0 / 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := add(NewSink(tt.kind), tt.vals...)
			if s.Count() != int64(len(tt.vals)) {
				t.Errorf("Count = %d, want %d", s.Count(), len(tt.vals))
			}
			for name, want := range tt.want {
				got, ok := s.Value(mustStat(t, name), tt.elapsed)
				if !ok || math.Abs(got-want) > 1e-9 {
					t.Errorf("%s = %v (ok=%v), want %v", name, got, ok, want)
				}
			}
		})
	}
}

func TestEmptySinksHaveNoData(t *testing.T) {
	t.Parallel()
	for _, k := range []Kind{Counter, Gauge, Rate, Trend} {
		for _, st := range []string{"count", "rate", "value", "avg", "p(95)"} {
			if v, ok := NewSink(k).Value(mustStat(t, st), time.Second); ok {
				t.Errorf("%s %s on empty sink = %v, want no data", k, st, v)
			}
		}
	}
}

func TestSinkRejectsUnsupportedStat(t *testing.T) {
	t.Parallel()
	s := add(NewSink(Counter), 1)
	if _, ok := s.Value(mustStat(t, "p(95)"), time.Second); ok {
		t.Error("counter answered p(95)")
	}
	if _, ok := s.Value(mustStat(t, "rate"), 0); ok {
		t.Error("counter rate with zero elapsed time answered")
	}
}

func TestMergeEqualsAddingEverything(t *testing.T) {
	t.Parallel()
	a := []float64{3, 1, 4, 1, 5}
	b := []float64{9, 2, 6, 5, 3, 5}
	for _, k := range []Kind{Counter, Gauge, Rate, Trend} {
		whole := add(NewSink(k), append(append([]float64{}, a...), b...)...)
		left := add(NewSink(k), a...)
		right := NewSink(k)
		t0 := time.Unix(1000, 0).Add(time.Duration(len(a)) * time.Millisecond)
		for i, v := range b {
			right.Add(Sample{Value: v, Time: t0.Add(time.Duration(i) * time.Millisecond)})
		}
		if err := left.Merge(right); err != nil {
			t.Fatal(err)
		}
		for _, st := range []string{"count", "rate", "value", "min", "max", "avg", "med", "p(90)", "passes", "fails"} {
			w, wok := whole.Value(mustStat(t, st), time.Second)
			g, gok := left.Value(mustStat(t, st), time.Second)
			if w != g || wok != gok {
				t.Errorf("%s %s: merged %v/%v, whole %v/%v", k, st, g, gok, w, wok)
			}
		}
	}
	if err := NewSink(Trend).Merge(NewSink(Rate)); err == nil {
		t.Error("merging a rate into a trend succeeded")
	}
}

func TestTrendCloneIsIndependent(t *testing.T) {
	t.Parallel()
	s := add(NewTrendSink(10), 5, 1, 3)
	c := s.Clone()
	add(s, 0, 0, 0, 100)
	if got, _ := c.Value(mustStat(t, "med"), 0); got != 3 {
		t.Errorf("clone med = %v after adds to the original, want 3", got)
	}
	if got, _ := s.Value(mustStat(t, "max"), 0); got != 100 {
		t.Errorf("original max = %v, want 100", got)
	}
}

// The switch to HDR keeps count/avg/min/max exact and percentiles within the bound.
func TestTrendSwitchesToHDRWithinErrorBound(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	const n = 50_000
	exact := NewTrendSink(n)
	approx := NewTrendSink(1000)
	for range n {
		// Latency-like: lognormal around 100 ms, a few negatives to cover the second histogram.
		v := math.Exp(r.NormFloat64()+4.6) * (1 - 2*float64(r.IntN(50)/49))
		exact.AddValue(v)
		approx.AddValue(v)
	}
	if exact.Approximate() || exact.ErrorBound() != 0 {
		t.Fatal("sink within budget is approximate")
	}
	if !approx.Approximate() || approx.ErrorBound() != HDRRelativeError {
		t.Fatalf("sink past budget: approximate=%v bound=%v", approx.Approximate(), approx.ErrorBound())
	}
	for _, st := range []string{"count", "avg", "min", "max"} {
		w, _ := exact.Value(mustStat(t, st), 0)
		g, _ := approx.Value(mustStat(t, st), 0)
		if w != g {
			t.Errorf("%s: approx %v, exact %v: must stay exact", st, g, w)
		}
	}
	for _, p := range []float64{0, 1, 10, 25, 50, 90, 95, 99, 99.9, 100} {
		w := exact.percentile(p)
		g := approx.percentile(p)
		if math.Abs(g-w) > math.Abs(w)*HDRRelativeError+HDRAbsoluteError {
			t.Errorf("p(%v) = %v, exact %v: error %.3g beyond bound", p, g, w, math.Abs(g-w)/math.Abs(w))
		}
	}
}

func TestTrendMergeAcrossModes(t *testing.T) {
	t.Parallel()
	a, b := NewTrendSink(4), NewTrendSink(4)
	add(a, 1, 2, 3)
	add(b, 4, 5, 6)
	if err := a.Merge(b); err != nil {
		t.Fatal(err)
	}
	if !a.Approximate() || a.Count() != 6 {
		t.Fatalf("merge past budget: approximate=%v count=%d", a.Approximate(), a.Count())
	}
	c := add(NewTrendSink(4), 7, 8)
	if err := c.Merge(a); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Value(mustStat(t, "med"), 0); math.Abs(got-4.5) > 4.5*HDRRelativeError {
		t.Errorf("med = %v, want ≈4.5", got)
	}
	if got, _ := c.Value(mustStat(t, "avg"), 0); got != 4.5 {
		t.Errorf("avg = %v, want 4.5", got)
	}
}

func TestParseStat(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"p(99)": "p(99)", "p99.9": "p(99.9)", "p( 95 )": "p(95)", "avg": "avg", "p0": "p(0)"} {
		st, err := ParseStat(in)
		if err != nil || st.String() != want {
			t.Errorf("ParseStat(%q) = %v, %v; want %s", in, st, err, want)
		}
	}
	for _, in := range []string{"p(101)", "p(-1)", "p", "p(9", "pInf", "pNaN", "mean", "p1e1"} {
		if _, err := ParseStat(in); err == nil {
			t.Errorf("ParseStat(%q) succeeded", in)
		}
	}
	if _, err := ParseTrendStats([]string{"avg", "rate"}); err == nil {
		t.Error("ParseTrendStats accepted rate")
	}
}

// Exact Trend percentiles are numpy's default "linear" method, edge cases included: the
// omni report prints them in vllm bench serve's rows, so the last digit must agree.
func TestTrendPercentileIsNumpyLinear(t *testing.T) {
	t.Parallel()
	hundredOne := make([]float64, 101)
	for i := range hundredOne {
		hundredOne[(i*37)%101] = float64(i * 10) // 0, 10, …, 1000, shuffled
	}
	tests := []struct {
		name string
		xs   []float64
		p    float64
		want float64
	}{
		{"one sample p0", []float64{5}, 0, 5},
		{"one sample p99", []float64{5}, 99, 5},
		{"one sample p100", []float64{5}, 100, 5},
		{"two samples p0", []float64{3, 1}, 0, 1},
		{"two samples p25", []float64{3, 1}, 25, 1.5},
		{"two samples p50", []float64{3, 1}, 50, 2},
		{"two samples p99", []float64{3, 1}, 99, 2.98},
		{"two samples p100", []float64{3, 1}, 100, 3},
		{"101 samples p50", hundredOne, 50, 500},
		{"101 samples p99", hundredOne, 99, 990},
		{"101 samples p99.5", hundredOne, 99.5, 995},
		{"101 samples p99.9", hundredOne, 99.9, 999},
		{"101 samples p0.1", hundredOne, 0.1, 1},
	}
	for _, tt := range tests {
		s := NewTrendSink(0)
		for _, x := range tt.xs {
			s.AddValue(x)
		}
		got, _ := s.Value(Percentile(tt.p), 0)
		if math.Abs(got-tt.want) > 1e-9*math.Max(1, tt.want) {
			t.Errorf("%s: P%v = %v, want %v", tt.name, tt.p, got, tt.want)
		}
	}
}
