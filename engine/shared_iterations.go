package engine

import (
	"sync/atomic"
	"time"
)

// sharedIterations runs a fixed number of iterations shared by its VUs: a fast VU takes
// more of them. Iterations not started by maxDuration count as dropped.
type sharedIterations struct {
	vus, iterations int64
	maxDuration     time.Duration
}

func buildSharedIterations(c *check, sc *ScenarioConfig, seg Segment) executor {
	vus := c.int("vus", sc.VUs, 1, 1)
	its := c.int("iterations", sc.Iterations, 1, 1)
	maxDur := c.dur("maxDuration", sc.MaxDuration, DefaultMaxDuration, 1)
	its = seg.Scale(its)
	// More VUs than iterations would only sit idle; a piece with iterations but no VU
	// of its share would drop them all, so it gets one.
	return &sharedIterations{vus: min(max(seg.Scale(vus), 1), its), iterations: its, maxDuration: maxDur}
}

func (e *sharedIterations) shape() shape {
	return shape{vus: e.vus, maxVUs: e.vus, duration: e.maxDuration, iterations: e.iterations, byIterations: true}
}

func (e *sharedIterations) run(s *scenario) {
	var taken atomic.Int64
	began := s.eachVU(e.vus, func(vu VU) {
		for !s.stopping() {
			n := taken.Add(1) - 1
			if n >= e.iterations {
				return
			}
			s.iterate(s.iterCtx, vu, s.inTest(uint64(n)), time.Time{}, nil)
		}
	})
	if began {
		s.drop(e.iterations - min(taken.Load(), e.iterations))
	}
}
