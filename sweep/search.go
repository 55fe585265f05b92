// Package sweep finds the highest load a scenario sustains with every threshold passing:
// it runs the scenario again and again in one process (testrun), at loads a search
// chooses (a geometric pass up, then bisection), each step measured after a warm-up, and
// reports every step and the answer with its bracket.
package sweep

import (
	"fmt"
	"math"
	"strconv"
)

// Knob is what a sweep varies.
type Knob string

const (
	// Rate is an arrival-rate scenario's iterations per second.
	Rate Knob = "rate"
	// VUs is a constant-vus scenario's VUs: a closed loop's concurrency.
	VUs Knob = "vus"
)

// Unit is how a load of the knob reads.
func (k Knob) Unit() string {
	if k == VUs {
		return "VUs"
	}
	return "req/s"
}

// Format writes a load of the knob as it is, in plain digits (the search rounds rates
// to 3 significant ones).
func (k Knob) Format(load float64) string { return strconv.FormatFloat(load, 'f', -1, 64) }

// roundRate is a rate to 3 significant digits: the table's precision, far finer than
// any step's noise.
func roundRate(load float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(load, 'g', 3, 64), 64)
	return v
}

// search chooses the loads: up from Min by Factor until a step fails (or Max passes),
// then bisection, geometric, between the highest pass and the lowest fail until they are
// within Precision of each other.
type search struct {
	knob      Knob
	min, max  float64
	factor    float64
	precision float64 // relative: stop when fail/pass ≤ 1+precision
	// pass is the highest load that passed, fail the lowest that failed; 0 for none.
	pass, fail float64
	last       float64 // the last load tried in the geometric pass
}

func newSearch(knob Knob, min, max, factor, precision float64) *search {
	return &search{knob: knob, min: min, max: max, factor: factor, precision: precision}
}

// next is the next load to try; false when the search is over.
func (s *search) next() (float64, bool) {
	switch {
	case s.last == 0:
		return s.first(), true
	case s.fail == 0: // still going up
		if s.pass >= s.max {
			return 0, false
		}
		return min(s.above(s.last*s.factor), s.max), true
	case s.pass == 0: // the lowest load failed
		return 0, false
	}
	if s.converged() {
		return 0, false
	}
	mid := s.round(math.Sqrt(s.pass * s.fail))
	if mid <= s.pass || mid >= s.fail {
		return 0, false // no load the knob can take lies between
	}
	return mid, true
}

// record notes a step's verdict.
func (s *search) record(load float64, passed bool) {
	if s.fail == 0 {
		s.last = load
	}
	switch {
	case passed && load > s.pass:
		s.pass = load
	case !passed && (s.fail == 0 || load < s.fail):
		s.fail = load
	}
}

// converged reports whether the bracket is as tight as asked: fail/pass ≤ 1+precision,
// or, for VUs, neighbours.
func (s *search) converged() bool {
	if s.pass == 0 || s.fail == 0 {
		return false
	}
	return s.fail/s.pass <= 1+s.precision || (s.knob == VUs && s.fail-s.pass <= 1)
}

// first is the first load: the minimum, rounded but never out of the range (a minimum
// of more digits than 3 stays as given).
func (s *search) first() float64 { return min(max(s.round(s.min), s.min), s.max) }

// above is load rounded, but past the last load tried: a factor of 1.1 on 1 VU rounds
// back to 1. (A rate of 3 digits times 1.1 always rounds past itself.)
func (s *search) above(load float64) float64 {
	v := s.round(load)
	if s.knob == VUs && v <= s.last {
		return s.last + 1
	}
	return v
}

// round makes a load one the knob takes: whole VUs, rates of 3 significant digits.
func (s *search) round(load float64) float64 {
	if s.knob == VUs {
		return max(math.Round(load), 1)
	}
	return roundRate(load)
}

// verdict says why the search is over.
func (s *search) verdict() string {
	switch {
	case s.pass == 0:
		return "the lowest load fails"
	case s.fail == 0:
		return "the range's top passes: the answer is at least that"
	case s.knob == VUs && s.fail-s.pass <= 1:
		return "the answer is two neighbouring VU counts"
	case s.converged():
		return fmt.Sprintf("the answer is within %s", percent(s.precision))
	}
	return "no load the knob takes lies between the last pass and fail"
}

// percent writes a fraction as a percentage: 0.05 is "5%".
func percent(f float64) string { return strconv.FormatFloat(100*f, 'g', 3, 64) + "%" }
