package engine

import (
	"math"
	"testing"
	"time"
)

func TestSegmentSharesSumAndStripe(t *testing.T) {
	t.Parallel()
	var segs []Segment
	for _, s := range []string{"0:1/4", "1/4:1/2", "1/2:3/4", "0.75:1"} {
		seg, err := ParseSegment(s)
		if err != nil {
			t.Fatal(err)
		}
		segs = append(segs, seg)
	}
	for _, n := range []int64{0, 1, 3, 7, 10, 1001} {
		var sum int64
		for _, s := range segs {
			sum += s.Scale(n)
		}
		if sum != n {
			t.Errorf("shares of %d sum to %d", n, sum)
		}
	}
	checkPartition(t, segs, 100)
	if !FullSegment().IsFull() || FullSegment().String() != "0:1" || segs[1].String() != "1/4:1/2" {
		t.Errorf("strings %s %s", FullSegment(), segs[1])
	}
	for _, bad := range []string{"1/2:1/4", "0:2", "x:1", "0:1/10000001"} {
		if _, err := ParseSegment(bad); err == nil {
			t.Errorf("ParseSegment(%q) accepted", bad)
		}
	}
}

func TestGammaGapsMeanAndVariance(t *testing.T) {
	t.Parallel()
	const n, mean = 200_000, 0.1 // rate 10/s, in seconds
	for _, k := range []float64{1, 0.5, 2} {
		g := newGammaGaps(42, k, mean)
		var sum, sq float64
		for range n {
			x := g.next()
			if x < 0 {
				t.Fatalf("negative gap %v", x)
			}
			sum += x
			sq += x * x
		}
		m := sum / n
		v := sq/n - m*m
		// Gamma(k, mean/k): mean = mean, variance = mean²/k. 200k samples give well
		// under 1% error on the mean and about 2% on the variance for these shapes.
		if math.Abs(m-mean)/mean > 0.01 {
			t.Errorf("burstiness %v: mean %v, want %v ±1%%", k, m, mean)
		}
		if want := mean * mean / k; math.Abs(v-want)/want > 0.04 {
			t.Errorf("burstiness %v: variance %v, want %v ±4%%", k, v, want)
		}
	}
	a, b := newGammaGaps(7, 0.5, 1), newGammaGaps(7, 0.5, 1)
	for range 100 {
		if a.next() != b.next() {
			t.Fatal("same seed gave different gaps")
		}
	}
	if newGammaGaps(1, 1, 0).next() != 0 {
		t.Error("infinite rate must give zero gaps")
	}
}

func collect(next arrivals) []time.Duration {
	var out []time.Duration
	for off, ok := next(); ok; off, ok = next() {
		out = append(out, off)
	}
	return out
}

func TestConstantArrivalOffsets(t *testing.T) {
	t.Parallel()
	e := buildConstantArrivalRate(&check{}, &ScenarioConfig{Rate: ptr(Rate(4)), Duration: ptr(Duration(time.Second)), PreAllocatedVUs: ptr(int64(1))}, FullSegment()).(*constantArrivalRate)
	next := e.arrivals()
	got := collect(next)
	want := []time.Duration{0, 250 * time.Millisecond, 500 * time.Millisecond, 750 * time.Millisecond}
	if len(got) != len(want) || e.shape().iterations != 4 {
		t.Fatalf("offsets %v, want %v", got, want)
	}
	// The schedule ends at the duration, not at the last arrival.
	if end, ok := next(); ok || end != time.Second {
		t.Errorf("after the last arrival: %v, %v; want the end at 1s", end, ok)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("offset %d = %v, want %v", i, got[i], want[i])
		}
	}
}

// A ramp inverts the area under the rate line: 0→10/s over 2 s then 10/s for 1 s has
// area 10 + 10 = 20 arrivals; on the ramp N(t) = 2.5·t², so the n-th is at √(0.4·n) s.
func TestRampArrivalsInvertArea(t *testing.T) {
	t.Parallel()
	sec := float64(time.Second)
	got := collect(rampArrivals(0, []rateStage{{2 * sec, 10 / sec}, {1 * sec, 10 / sec}}))
	if len(got) != 20 {
		t.Fatalf("%d arrivals, want 20: %v", len(got), got)
	}
	for n := 0; n < 10; n++ {
		want := time.Duration(math.Sqrt(float64(n)*0.4) * sec)
		if d := got[n] - want; d < -time.Microsecond || d > time.Microsecond {
			t.Errorf("arrival %d at %v, want %v", n, got[n], want)
		}
	}
	for n := 10; n < 20; n++ {
		want := 2*time.Second + time.Duration(n-10)*100*time.Millisecond
		if d := got[n] - want; d < -time.Microsecond || d > time.Microsecond {
			t.Errorf("arrival %d at %v, want %v", n, got[n], want)
		}
	}
	// Ramping down 10→0 over 1 s: 5 arrivals, ever further apart, and the schedule ends
	// with the stages.
	next := rampArrivals(10/sec, []rateStage{{sec, 0}})
	down := collect(next)
	if end, ok := next(); len(down) != 5 || down[4]-down[3] <= down[1]-down[0] || ok || end != time.Second {
		t.Errorf("ramp down %v, ending at %v", down, end)
	}
}

func TestRampSteps(t *testing.T) {
	t.Parallel()
	s := time.Second
	got := rampSteps(1, []Stage{{Duration(2 * s), 3}, {Duration(0), 5}, {Duration(4 * s), 1}})
	want := []step{{0, 1}, {s, 2}, {2 * s, 3}, {2 * s, 4}, {2 * s, 5}, {3 * s, 4}, {4 * s, 3}, {5 * s, 2}, {6 * s, 1}}
	if len(got) != len(want) {
		t.Fatalf("steps %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("step %d = %v, want %v", i, got[i], want[i])
		}
	}
}
