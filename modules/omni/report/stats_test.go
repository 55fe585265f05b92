package report

import (
	"math"
	"math/rand/v2"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestPercentileIsNumpyLinear(t *testing.T) {
	t.Parallel()
	hundredOne := make([]float64, 101)
	for i := range hundredOne {
		hundredOne[i] = float64(i * 10) // 0, 10, …, 1000
	}
	rand.Shuffle(len(hundredOne), func(i, j int) { hundredOne[i], hundredOne[j] = hundredOne[j], hundredOne[i] })
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
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := summarize(tt.xs, []float64{tt.p}, 1)
			if got := d.Percentiles[0].Value; !near(got, tt.want) {
				t.Errorf("P%v = %v, want %v", tt.p, got, tt.want)
			}
		})
	}
}

func TestSummarizeMeanMedianAndScale(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name              string
		xs                []float64
		scale             float64
		mean, median, p99 float64
	}{
		{"odd count", []float64{0.3, 0.1, 0.2}, 1000, 200, 200, 298},
		{"even count takes the middle mean", []float64{4, 1, 2, 3}, 1, 2.5, 2.5, 3.97},
		{"single", []float64{0.25}, 1000, 250, 250, 250},
		{"empty is zero, never NaN", nil, 1000, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := summarize(tt.xs, []float64{99}, tt.scale)
			if d.N != len(tt.xs) || !near(d.Mean, tt.mean) || !near(d.Median, tt.median) || !near(d.Percentiles[0].Value, tt.p99) {
				t.Errorf("got %+v, want N=%d mean=%v median=%v p99=%v", d, len(tt.xs), tt.mean, tt.median, tt.p99)
			}
		})
	}
}

func TestSummarizeMSRoundTripsThroughSeconds(t *testing.T) {
	t.Parallel()
	d := summarizeMS([]float64{100, 300}, []float64{50})
	if !near(d.Mean, 200) || !near(d.Percentiles[0].Value, 200) {
		t.Errorf("got %+v", d)
	}
}

func TestPercentileLabel(t *testing.T) {
	t.Parallel()
	for p, want := range map[float64]string{99: "99", 50: "50", 100: "100", 0: "0", 99.9: "99.9", 0.5: "0.5", 99.99: "99.99"} {
		if got := percentileLabel(p); got != want {
			t.Errorf("percentileLabel(%v) = %q, want %q", p, got, want)
		}
	}
}
