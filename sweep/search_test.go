package sweep

import (
	"math"
	"testing"
)

// runSearch drives a search against a server that passes up to knee (inclusive) and
// returns the loads tried and the bracket found.
func runSearch(s *search, knee float64) (tried []float64) {
	for {
		load, ok := s.next()
		if !ok {
			return tried
		}
		tried = append(tried, load)
		s.record(load, load <= knee)
		if len(tried) > 100 {
			panic("the search does not end")
		}
	}
}

func TestSearchBracketsTheKnee(t *testing.T) {
	for _, c := range []struct {
		name                 string
		knob                 Knob
		min, max, knee, prec float64
		pass, fail           float64 // the bracket wanted; 0: none
	}{
		{"rate knee inside", Rate, 1, 64, 6.3, 0.05, 0, 0},
		{"rate knee at the lowest", Rate, 1, 64, 0.5, 0.05, 0, 1},
		{"rate never fails", Rate, 1, 64, 1000, 0.05, 64, 0},
		{"rate max not a power", Rate, 1, 50, 1000, 0.05, 50, 0},
		{"rate knee just under max", Rate, 1, 50, 49, 0.05, 0, 0},
		{"vus knee inside", VUs, 1, 256, 37, 0.05, 37, 38},
		{"vus coarse precision", VUs, 1, 256, 37, 0.5, 32, 0},
		{"vus min fails", VUs, 4, 256, 2, 0.05, 0, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newSearch(c.knob, c.min, c.max, 2, c.prec)
			tried := runSearch(s, c.knee)
			if s.pass > c.knee || (s.fail != 0 && s.fail <= c.knee) {
				t.Fatalf("bracket [%v, %v] does not hold the knee %v (tried %v)", s.pass, s.fail, c.knee, tried)
			}
			if s.pass != 0 && s.fail != 0 && !s.converged() && !(c.knob == VUs && s.fail-s.pass <= 1) {
				// Rounding may leave no load between; then the bracket is as tight as the knob allows.
				if mid := s.round(math.Sqrt(s.pass * s.fail)); mid > s.pass && mid < s.fail {
					t.Errorf("stopped at [%v, %v], wider than %v apart (tried %v)", s.pass, s.fail, c.prec, tried)
				}
			}
			if c.pass != 0 && s.pass != c.pass {
				t.Errorf("highest pass %v, want %v (tried %v)", s.pass, c.pass, tried)
			}
			if c.fail != 0 && s.fail != c.fail {
				t.Errorf("lowest fail %v, want %v (tried %v)", s.fail, c.fail, tried)
			}
			for i, l := range tried {
				if l < c.min || l > c.max {
					t.Errorf("tried %v, outside [%v, %v]", l, c.min, c.max)
				}
				for _, m := range tried[:i] {
					if m == l {
						t.Errorf("tried %v twice (%v)", l, tried)
					}
				}
			}
		})
	}
}

// The geometric pass doubles; bisection needs about log2(log(fail/pass)/log(1+p)) more.
func TestSearchStepCount(t *testing.T) {
	s := newSearch(Rate, 1, 64, 2, 0.05)
	tried := runSearch(s, 6.3)
	// 1, 2, 4, 8 then bisection of [4, 8] down to 5 %: log2(ln 2/ln 1.05) ≈ 3.8 → 4 or 5.
	if len(tried) < 7 || len(tried) > 10 {
		t.Errorf("%d steps (%v): want 4 doublings and 3 to 6 bisections", len(tried), tried)
	}
}
