package engine

import (
	"math"
	"time"
)

// poissonArrivalRate is the load model of vllm bench serve: arrivals at rate per
// timeUnit with gamma-distributed gaps (burstiness = shape; 1 = Poisson), the first at
// t = 0, for a number of iterations, a duration, or both (whichever ends first). maxVUs
// caps concurrency and, unlike k6's executors, arrivals that find every VU busy queue by
// default (vllm's semaphore), so schedule_lag shows the wait.
//
// rate "inf" makes every iteration due at t = 0 (vllm's --request-rate inf) and needs
// iterations; a rate of 0 is an error, because it would never start anything.
type poissonArrivalRate struct {
	arrivalPool
	meanGap     float64 // nanoseconds; 0 for an infinite rate
	burstiness  float64
	iterations  int64 // 0: bounded by duration only
	duration    time.Duration
	maxDuration time.Duration
	seed        uint64
}

func buildPoissonArrivalRate(c *check, sc *ScenarioConfig, seg Segment) executor {
	e := &poissonArrivalRate{arrivalPool: buildArrivalPool(c, sc, seg, true)}
	var rate float64
	if c.required("rate", sc.Rate != nil) {
		if rate = c.rate("rate", sc.Rate, 0, true); rate == 0 {
			c.failf("\"rate\" must be positive, or \"inf\" to start every iteration at once")
		}
	}
	unit := c.dur("timeUnit", sc.TimeUnit, time.Second, 1)
	e.meanGap = float64(unit) / rate
	e.burstiness = 1
	if b := sc.Burstiness; b != nil {
		if !(*b > 0) || math.IsInf(*b, 1) {
			c.failf("\"burstiness\" must be a positive number, got %v", *b)
		}
		e.burstiness = *b
	}
	e.iterations = c.int("iterations", sc.Iterations, 0, 1)
	e.duration = c.dur("duration", sc.Duration, 0, 1)
	e.maxDuration = c.dur("maxDuration", sc.MaxDuration, DefaultMaxDuration, 1)
	switch {
	case e.iterations == 0 && e.duration == 0:
		c.failf("set \"iterations\", \"duration\" or both")
	case math.IsInf(rate, 1) && e.iterations == 0:
		c.failf("an infinite \"rate\" needs \"iterations\"")
	case sc.Duration != nil && sc.MaxDuration != nil:
		c.failf("\"maxDuration\" bounds an iterations-only run; with \"duration\" leave it out")
	}
	if sc.Seed != nil {
		e.seed = uint64(*sc.Seed)
	}
	return e
}

func (e *poissonArrivalRate) shape() shape {
	d := e.duration
	if d == 0 {
		d = e.maxDuration
	}
	return shape{vus: e.preAllocated, maxVUs: e.maxVUs, duration: d, iterations: e.seg.Scale(e.iterations), byIterations: e.duration == 0}
}

func (e *poissonArrivalRate) run(s *scenario) { e.arrivalPool.run(s, e.arrivals()) }

// arrivals ends the schedule at duration when the duration bounds it, or with the last
// arrival when iterations run out first (as vllm bench serve's run ends with its last
// request).
func (e *poissonArrivalRate) arrivals() arrivals {
	next := e.offsets()
	return func() (time.Duration, bool) {
		off, ok := next()
		switch {
		case !ok:
			return 0, false
		case e.duration > 0 && off >= e.duration:
			return e.duration, false
		}
		return off, true
	}
}

// offsets yields the arrival offsets. A count-bounded run at a finite rate follows
// vllm bench serve exactly: every arrival, the first included, waits a gamma gap, and the
// offsets are scaled so the last one falls at iterations/rate, which keeps throughput
// stable across seeds. Otherwise the first arrival is at 0 and the gaps are not scaled.
func (e *poissonArrivalRate) offsets() func() (time.Duration, bool) {
	gaps := newGammaGaps(e.seed, e.burstiness, e.meanGap)
	if e.iterations > 0 && e.duration == 0 && e.meanGap > 0 {
		at := make([]float64, e.iterations)
		var t float64
		for i := range at {
			t += gaps.next()
			at[i] = t
		}
		scale := float64(e.iterations) * e.meanGap / t
		i := 0
		return func() (time.Duration, bool) {
			if i >= len(at) {
				return 0, false
			}
			i++
			return time.Duration(at[i-1] * scale), true
		}
	}
	var i int64
	var t float64
	return func() (time.Duration, bool) {
		if e.iterations > 0 && i >= e.iterations {
			return 0, false
		}
		i++
		off := time.Duration(t)
		t += gaps.next()
		return off, true
	}
}
