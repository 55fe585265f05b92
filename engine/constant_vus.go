package engine

import "time"

// constantVUs keeps a fixed number of VUs looping for a duration.
type constantVUs struct {
	vus      int64
	duration time.Duration
}

func buildConstantVUs(c *check, sc *ScenarioConfig, seg Segment) executor {
	vus := c.int("vus", sc.VUs, 1, 1)
	var d time.Duration
	if c.required("duration", sc.Duration != nil) {
		d = c.dur("duration", sc.Duration, 0, 1)
	}
	return &constantVUs{vus: seg.Scale(vus), duration: d}
}

func (e *constantVUs) shape() shape {
	return shape{vus: e.vus, maxVUs: e.vus, duration: e.duration}
}

func (e *constantVUs) run(s *scenario) {
	s.eachVU(e.vus, func(vu VU) {
		for !s.stopping() {
			s.iterate(s.iterCtx, vu, s.inTest(s.nextN.Add(1)-1), time.Time{}, nil)
		}
	})
}
