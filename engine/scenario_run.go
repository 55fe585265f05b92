package engine

import (
	"context"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/omnik-dev/omnik/js"
	"github.com/omnik-dev/omnik/metrics"
)

// scenario is one scenario while the run lasts: what its executor needs from the run,
// and its live counts.
type scenario struct {
	plan *ScenarioPlan
	run  *Run
	tags *metrics.TagSet // global tags + scenario tags + scenario=name

	// Set by runScenario before the executor runs; read-only afterwards.
	startCtx     context.Context // done: start no more iterations
	iterCtx      context.Context // done: interrupt the running ones
	stopStarting context.CancelFunc

	// Set by begin, on the executor's goroutine, before the first iteration; read-only
	// afterwards.
	info     *js.Scenario
	startAt  time.Time
	deadline *time.Timer // ends the duration: stopStarting at startAt + duration

	started       atomic.Int64              // unix nanoseconds of startAt, 0 before the start, for readers on other goroutines
	ended         atomic.Int64              // unix nanoseconds of the end, 0 before
	scheduleEnded atomic.Pointer[time.Time] // when an arrival schedule ended, nil before and for other executors
	finished      atomic.Bool
	nextN         atomic.Uint64 // closed executors' next iteration, in this instance
	begun         atomic.Uint64 // iterations begun in this instance (iterationInInstance)
	completed     atomic.Int64
	failed        atomic.Int64 // completed iterations that threw
	interrupted   atomic.Int64
	dropped       atomic.Int64
	noVU          atomic.Int64 // of dropped, arrivals that found no VU free
	active        atomic.Int64
	warnOnce      sync.Once
}

func newScenario(r *Run, p *ScenarioPlan) *scenario {
	tags := maps.Clone(r.opts.Tags)
	if tags == nil {
		tags = map[string]string{}
	}
	maps.Copy(tags, p.Tags)
	tags["scenario"] = p.Name
	return &scenario{plan: p, run: r, tags: metrics.NewTagSet(tags)}
}

// begin starts the scenario's clock once the executor has its VUs ready: its schedule
// and its duration count from here, so time spent getting VUs is taken from neither. It
// publishes the js view of the scenario and reports false, starting nothing, when the
// scenario was stopped first. Every executor calls it once, before its first iteration.
func (s *scenario) begin() bool {
	if s.stopping() {
		return false
	}
	s.startAt = time.Now()
	s.info = &js.Scenario{
		Name: s.plan.Name, Executor: s.plan.Executor, Exec: s.plan.Exec,
		Env: s.plan.Env, Tags: s.tags.Map(), StartTime: s.startAt, Progress: s.progress,
	}
	if !s.plan.endsItself {
		s.deadline = time.AfterFunc(s.plan.Duration.D(), s.stopStarting)
	}
	s.started.Store(s.startAt.UnixNano())
	return true
}

// progress is 0..1: iterations done for iteration-based executors, time otherwise.
func (s *scenario) progress() float64 {
	if s.finished.Load() {
		return 1
	}
	if s.plan.byIterations && s.plan.Iterations > 0 {
		return min(1, float64(s.completed.Load()+s.interrupted.Load())/float64(s.plan.Iterations))
	}
	if d := s.plan.Duration.D(); d > 0 {
		return min(1, float64(s.elapsed())/float64(d))
	}
	return 0
}

func (s *scenario) elapsed() time.Duration {
	start := s.started.Load()
	if start == 0 {
		return 0
	}
	if end := s.ended.Load(); end != 0 {
		return time.Duration(end - start)
	}
	return time.Since(time.Unix(0, start))
}

// finish marks the scenario done, freezing its elapsed time.
func (s *scenario) finish() {
	if s.deadline != nil {
		s.deadline.Stop()
	}
	if s.started.Load() != 0 {
		s.ended.Store(time.Now().UnixNano())
	}
	s.finished.Store(true)
}

// stopping reports whether the executor must start no more iterations. Once iterations
// are interrupted there is no point starting one either: the two contexts are cancelled
// one after the other, and a loop between them would spin through interrupted iterations.
func (s *scenario) stopping() bool { return s.startCtx.Err() != nil || s.iterCtx.Err() != nil }

// inTest is the test-wide number of this piece's n-th iteration of a closed executor
// (arrival-rate executors number by arrival, already test-wide).
func (s *scenario) inTest(n uint64) uint64 { return uint64(s.run.segment.Nth(int64(n))) }

// iterate runs iteration n on vu and reports whether it completed; false means it was
// interrupted (gracefulStop ran out, a ramp-down, an abort or a hard stop). intended is
// the scheduled start of an arrival-rate iteration, zero otherwise; entry is the trace
// entry a trace-replay iteration replays, nil otherwise.
func (s *scenario) iterate(ctx context.Context, vu VU, n uint64, intended time.Time, entry js.TraceEntry) bool {
	r := s.run
	var began time.Time
	if !intended.IsZero() || r.minIteration > 0 {
		began = time.Now()
	}
	if !intended.IsZero() {
		r.emit(r.builtin.ScheduleLag, s.tags, float64(began.Sub(intended))/float64(time.Millisecond), began)
	}
	s.active.Add(1)
	local := s.begun.Add(1) - 1
	err := vu.RunIteration(ctx, &js.Iteration{Scenario: s.info, InTest: n, InInstance: local, IntendedStart: intended, SetupData: r.setupData, TraceEntry: entry})
	s.active.Add(-1)
	if ctx.Err() != nil {
		s.interrupted.Add(1)
		return false
	}
	s.completed.Add(1)
	if err != nil {
		s.failed.Add(1)
		// An exception must be visible without -v: a run whose every iteration throws
		// is not a passing run. The first ones are shown, the rest counted.
		r.iterErrors.failed(s.plan.Name, js.Exception(err))
	}
	if r.minIteration > 0 {
		s.pause(r.minIteration - time.Since(began))
	}
	return true
}

// pause waits d unless the scenario stops starting iterations first.
func (s *scenario) pause(d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-s.startCtx.Done():
	}
}

// eachVU borrows n VUs, begins the scenario and runs fn on each VU on its own
// goroutine, giving them back when fn returns. It reports whether the scenario began.
func (s *scenario) eachVU(n int64, fn func(vu VU)) bool {
	var vus []VU
	for range n {
		vu, err := s.run.pool.get(s.startCtx)
		if err != nil {
			s.run.log.Error("cannot get a VU", "scenario", s.plan.Name, "error", err)
			continue
		}
		vus = append(vus, vu)
	}
	if !s.begin() {
		for _, vu := range vus {
			s.run.pool.put(vu)
		}
		return false
	}
	var wg sync.WaitGroup
	for _, vu := range vus {
		wg.Go(func() {
			defer s.run.pool.put(vu)
			fn(vu)
		})
	}
	wg.Wait()
	return true
}

// drop counts n iterations that were due but never started.
func (s *scenario) drop(n int64) {
	if n <= 0 {
		return
	}
	s.dropped.Add(n)
	s.run.emit(s.run.builtin.DroppedIterations, s.tags, float64(n), time.Now())
}

// warnInsufficientVUs warns once per scenario that arrivals found no free VU.
func (s *scenario) warnInsufficientVUs(queued bool) {
	s.warnOnce.Do(func() {
		what := "dropped"
		if queued {
			what = "queued (see schedule_lag)"
		}
		s.run.log.Warn("insufficient VUs: iterations are being "+what+"; raise preAllocatedVUs or maxVUs",
			"scenario", s.plan.Name, "maxVUs", s.plan.MaxVUs)
	})
}
