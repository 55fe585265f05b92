package report

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestDistMeanMedianAndUnit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name              string
		xs                []float64
		div               float64
		mean, median, p99 float64
	}{
		{"odd count", []float64{300, 100, 200}, 1, 200, 200, 298},
		{"even count takes the middle mean", []float64{4, 1, 2, 3}, 1, 2.5, 2.5, 3.97},
		{"milliseconds printed as seconds", []float64{250}, 1000, 0.25, 0.25, 0.25},
		{"empty is zero, never NaN", nil, 1000, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSeries(0)
			for _, x := range tt.xs {
				s.add(x)
			}
			d := s.dist([]float64{99}, tt.div)
			if d.N != len(tt.xs) || !near(d.Mean, tt.mean) || !near(d.Median, tt.median) || !near(d.Percentiles[0].Value, tt.p99) || d.Percentiles[0].P != 99 {
				t.Errorf("got %+v, want N=%d mean=%v median=%v p99=%v", d, len(tt.xs), tt.mean, tt.median, tt.p99)
			}
		})
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
