package engine

import (
	"sync/atomic"
	"time"
)

// perVUIterations runs the same number of iterations on each VU. Iterations not started
// by maxDuration count as dropped.
type perVUIterations struct {
	vus, iterations int64
	maxDuration     time.Duration
}

func buildPerVUIterations(c *check, sc *ScenarioConfig, seg Segment) executor {
	vus := c.int("vus", sc.VUs, 1, 1)
	its := c.int("iterations", sc.Iterations, 1, 1)
	maxDur := c.dur("maxDuration", sc.MaxDuration, DefaultMaxDuration, 1)
	return &perVUIterations{vus: seg.Scale(vus), iterations: its, maxDuration: maxDur}
}

func (e *perVUIterations) shape() shape {
	return shape{vus: e.vus, maxVUs: e.vus, duration: e.maxDuration, iterations: e.vus * e.iterations, byIterations: true}
}

func (e *perVUIterations) run(s *scenario) {
	var left atomic.Int64
	s.eachVU(e.vus, func(vu VU) {
		for i := range e.iterations {
			if s.stopping() {
				left.Add(e.iterations - i)
				return
			}
			s.iterate(s.iterCtx, vu, s.inTest(s.nextN.Add(1)-1), time.Time{}, nil)
		}
	})
	s.drop(left.Load())
}
