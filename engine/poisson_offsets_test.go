package engine

import (
	"math"
	"testing"
	"time"
)

// A count-bounded Poisson run reproduces vllm bench serve's schedule: the first arrival
// waits a gap too, and the last one lands exactly at iterations/rate.
func TestPoissonCountBoundedOffsetsEndAtNOverRate(t *testing.T) {
	t.Parallel()
	for _, burstiness := range []float64{1, 0.5} {
		e := &poissonArrivalRate{meanGap: float64(100 * time.Millisecond), burstiness: burstiness, iterations: 50, seed: 3}
		next := e.offsets()
		var got []time.Duration
		for {
			off, ok := next()
			if !ok {
				break
			}
			got = append(got, off)
		}
		if len(got) != 50 {
			t.Fatalf("burstiness %v: %d offsets, want 50", burstiness, len(got))
		}
		if got[0] <= 0 {
			t.Errorf("burstiness %v: first offset %v, want a gap before it", burstiness, got[0])
		}
		if last := got[49]; math.Abs(float64(last-5*time.Second)) > float64(time.Microsecond) {
			t.Errorf("burstiness %v: last offset %v, want 5s (50 / 10 per second)", burstiness, last)
		}
		for i := 1; i < len(got); i++ {
			if got[i] < got[i-1] {
				t.Fatalf("offsets not sorted at %d: %v < %v", i, got[i], got[i-1])
			}
		}
	}
}

// With a duration the stream is open-ended: it starts at 0 and is not rescaled.
func TestPoissonDurationOffsetsStartAtZero(t *testing.T) {
	t.Parallel()
	e := &poissonArrivalRate{meanGap: float64(10 * time.Millisecond), burstiness: 1, duration: time.Second, seed: 1}
	next := e.offsets()
	if off, ok := next(); !ok || off != 0 {
		t.Fatalf("first offset %v, %v; want 0", off, ok)
	}
}
