package engine

import (
	"math"
	"time"
)

// rampingArrivalRate changes the arrival rate linearly through stages, from startRate.
// Iteration i is due when the area under the rate line reaches i.
type rampingArrivalRate struct {
	arrivalPool
	startRate float64 // per nanosecond
	stages    []rateStage
	duration  time.Duration
}

type rateStage struct {
	d  float64 // nanoseconds
	to float64 // rate per nanosecond at the end
}

func buildRampingArrivalRate(c *check, sc *ScenarioConfig, seg Segment) executor {
	e := &rampingArrivalRate{arrivalPool: buildArrivalPool(c, sc, seg, false)}
	unit := float64(c.dur("timeUnit", sc.TimeUnit, time.Second, 1))
	e.startRate = c.rate("startRate", sc.StartRate, 0, false) / unit
	c.stages(sc.Stages, false)
	for _, st := range sc.Stages {
		e.stages = append(e.stages, rateStage{d: float64(st.Duration), to: st.Target / unit})
	}
	e.duration = stagesDuration(sc.Stages)
	return e
}

func (e *rampingArrivalRate) shape() shape {
	area, r0 := 0.0, e.startRate
	for _, st := range e.stages {
		area += (r0 + st.to) / 2 * st.d
		r0 = st.to
	}
	return shape{vus: e.preAllocated, maxVUs: e.maxVUs, duration: e.duration, iterations: e.seg.Scale(int64(math.Ceil(area)))}
}

func (e *rampingArrivalRate) run(s *scenario) {
	e.arrivalPool.run(s, rampArrivals(e.startRate, e.stages))
}

// rampArrivals inverts the area under a piecewise-linear rate: within a stage starting at
// t0 with n0 arrivals so far, N(t0+t) = n0 + r0·t + a·t² with a = (r1−r0)/(2d), so the
// x-th arrival into the stage is at t = 2x / (r0 + √(r0² + 4ax)), a form that stays exact
// when the rate is flat (a = 0) or starts at zero.
func rampArrivals(startRate float64, stages []rateStage) arrivals {
	k, t0, n0, r0, i := 0, 0.0, 0.0, startRate, 0.0
	return func() (time.Duration, bool) {
		for ; k < len(stages); k++ {
			st := stages[k]
			area := (r0 + st.to) / 2 * st.d
			if i < n0+area {
				x := i - n0
				var t float64
				if x > 0 {
					t = 2 * x / (r0 + math.Sqrt(max(0, r0*r0+4*(st.to-r0)/(2*st.d)*x)))
				}
				i++
				return time.Duration(t0 + t), true
			}
			t0, n0, r0 = t0+st.d, n0+area, st.to
		}
		return time.Duration(t0), false
	}
}
