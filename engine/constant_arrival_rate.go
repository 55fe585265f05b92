package engine

import (
	"math"
	"time"
)

// constantArrivalRate starts rate iterations per timeUnit for a duration: iteration i
// is due at i·timeUnit/rate.
type constantArrivalRate struct {
	arrivalPool
	period   float64 // nanoseconds between arrivals
	duration time.Duration
}

func buildConstantArrivalRate(c *check, sc *ScenarioConfig, seg Segment) executor {
	e := &constantArrivalRate{arrivalPool: buildArrivalPool(c, sc, seg, false)}
	var rate float64
	if c.required("rate", sc.Rate != nil) {
		if rate = c.rate("rate", sc.Rate, 0, false); rate == 0 {
			c.failf("\"rate\" must be positive")
		}
	}
	unit := c.dur("timeUnit", sc.TimeUnit, time.Second, 1)
	if c.required("duration", sc.Duration != nil) {
		e.duration = c.dur("duration", sc.Duration, 0, 1)
	}
	e.period = float64(unit) / rate
	return e
}

func (e *constantArrivalRate) shape() shape {
	n := int64(math.Ceil(float64(e.duration) / e.period))
	return shape{vus: e.preAllocated, maxVUs: e.maxVUs, duration: e.duration, iterations: e.seg.Scale(n)}
}

func (e *constantArrivalRate) run(s *scenario) { e.arrivalPool.run(s, e.arrivals()) }

func (e *constantArrivalRate) arrivals() arrivals {
	var i float64
	return func() (time.Duration, bool) {
		off := time.Duration(i * e.period)
		if off >= e.duration {
			return e.duration, false
		}
		i++
		return off, true
	}
}
