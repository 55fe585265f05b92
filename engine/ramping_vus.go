package engine

import (
	"context"
	"sync"
	"time"
)

// rampingVUs changes the number of looping VUs linearly through stages. A VU that is
// ramped down finishes its iteration within gracefulRampDown, then is interrupted.
type rampingVUs struct {
	steps            []step
	maxVUs           int64
	duration         time.Duration
	gracefulRampDown time.Duration
}

// step: from offset at, vus VUs are active.
type step struct {
	at  time.Duration
	vus int64
}

func buildRampingVUs(c *check, sc *ScenarioConfig, seg Segment) executor {
	start := c.int("startVUs", sc.StartVUs, 1, 0)
	c.stages(sc.Stages, true)
	grace := c.dur("gracefulRampDown", sc.GracefulRampDown, DefaultGracefulStop, 0)
	// The whole test's ramp, each step scaled: the pieces' VUs add up to the single
	// process's at every moment (scaling the targets would make a piece's ramp a cliff).
	steps := scaleSteps(rampSteps(start, sc.Stages), seg)
	e := &rampingVUs{steps: steps, duration: stagesDuration(sc.Stages), gracefulRampDown: grace}
	for _, st := range steps {
		e.maxVUs = max(e.maxVUs, st.vus)
	}
	return e
}

// rampSteps lists every change of the active VU count. On a ramp from a to b over d, the
// count becomes k when the line reaches k, so each stage ends exactly on its target.
func rampSteps(start int64, stages []Stage) []step {
	steps := []step{{0, start}}
	cur, t := start, time.Duration(0)
	for _, st := range stages {
		to, d := int64(st.Target), st.Duration.D()
		dir, span := int64(1), to-cur
		if span < 0 {
			dir, span = -1, -span
		}
		for k := int64(1); k <= span; k++ {
			steps = append(steps, step{t + time.Duration(float64(d)*float64(k)/float64(span)), cur + dir*k})
		}
		t, cur = t+d, to
	}
	return steps
}

// scaleSteps is steps with each count scaled to seg, the steps that change nothing left out.
func scaleSteps(steps []step, seg Segment) []step {
	out := []step{{0, seg.Scale(steps[0].vus)}}
	for _, st := range steps[1:] {
		if v := seg.Scale(st.vus); v != out[len(out)-1].vus {
			out = append(out, step{st.at, v})
		}
	}
	return out
}

func (e *rampingVUs) shape() shape {
	return shape{vus: e.steps[0].vus, maxVUs: e.maxVUs, duration: e.duration}
}

func (e *rampingVUs) run(s *scenario) {
	// Slots take their VUs as they become active.
	if !s.begin() {
		return
	}
	slots := make([]*slot, e.maxVUs)
	var wg sync.WaitGroup
	for i := range slots {
		slots[i] = &slot{s: s, grace: e.gracefulRampDown, wake: make(chan struct{}, 1)}
		wg.Go(slots[i].loop)
	}
	t := time.NewTimer(0)
	defer t.Stop()
	for _, st := range e.steps {
		t.Reset(time.Until(s.startAt.Add(st.at)))
		select {
		case <-t.C:
		case <-s.startCtx.Done():
		}
		if s.stopping() {
			break
		}
		for i, sl := range slots {
			sl.set(int64(i) < st.vus)
		}
	}
	wg.Wait()
}

// slot is one VU position of a ramp: a goroutine that loops iterations while active.
type slot struct {
	s     *scenario
	grace time.Duration
	wake  chan struct{}

	mu     sync.Mutex
	active bool
	ctx    context.Context
	cancel context.CancelFunc
	timer  *time.Timer // interrupts a ramped-down iteration after grace
}

func (sl *slot) set(active bool) {
	sl.mu.Lock()
	if active == sl.active {
		sl.mu.Unlock()
		return
	}
	sl.active = active
	switch {
	case active && sl.timer != nil:
		sl.timer.Stop()
		sl.timer = nil
	case !active && sl.cancel != nil:
		sl.timer = time.AfterFunc(sl.grace, sl.cancel)
	}
	sl.mu.Unlock()
	select {
	case sl.wake <- struct{}{}:
	default:
	}
}

// iterationCtx returns the context of the next iteration, or nil when inactive.
func (sl *slot) iterationCtx() context.Context {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	if !sl.active {
		return nil
	}
	if sl.ctx == nil || sl.ctx.Err() != nil {
		sl.ctx, sl.cancel = context.WithCancel(sl.s.iterCtx)
	}
	return sl.ctx
}

func (sl *slot) loop() {
	s := sl.s
	var vu VU
	defer func() {
		if vu != nil {
			s.run.pool.put(vu)
		}
	}()
	for !s.stopping() {
		ctx := sl.iterationCtx()
		if ctx == nil {
			// Idle slots give their VU back so another scenario can use it.
			if vu != nil {
				s.run.pool.put(vu)
				vu = nil
			}
			select {
			case <-sl.wake:
			case <-s.startCtx.Done():
			}
			continue
		}
		if vu == nil {
			var err error
			if vu, err = s.run.pool.get(s.startCtx); err != nil {
				s.run.log.Error("cannot get a VU", "scenario", s.plan.Name, "error", err)
				return
			}
		}
		s.iterate(ctx, vu, s.inTest(s.nextN.Add(1)-1), time.Time{}, nil)
	}
}
