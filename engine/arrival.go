package engine

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/omnik-dev/omnik/js"
)

// arrivals yields the offsets, from the scenario start, at which the iterations of the
// whole test are due, in order. Offsets are absolute, so a slow iteration never shifts
// the ones after it. After the last one ok is false and offset is the end of the
// schedule: the scenario lasts until then, not just until its last arrival, so its rates
// are over its whole duration (0 when it ends with its last arrival).
type arrivals func() (offset time.Duration, ok bool)

// arrivalPool is the shared core of the arrival-rate executors: it starts each due
// iteration on an idle VU and, when none is idle, drops it or (queue) waits for one.
type arrivalPool struct {
	preAllocated, maxVUs int64
	queue                bool
	seg                  Segment
}

// buildArrivalPool reads the VU keys. k6's executors need preAllocatedVUs (maxVUs
// defaults to it) and drop by default; the Poisson executor, like vllm bench serve's
// --max-concurrency, needs maxVUs, pre-allocates all of them and queues by default.
func buildArrivalPool(c *check, sc *ScenarioConfig, seg Segment, poisson bool) arrivalPool {
	var pre, maxVUs int64
	if poisson {
		if c.required("maxVUs", sc.MaxVUs != nil) {
			maxVUs = c.int("maxVUs", sc.MaxVUs, 0, 1)
		}
		pre = c.int("preAllocatedVUs", sc.PreAllocatedVUs, maxVUs, 0)
	} else {
		if c.required("preAllocatedVUs", sc.PreAllocatedVUs != nil) {
			pre = c.int("preAllocatedVUs", sc.PreAllocatedVUs, 0, 0)
		}
		maxVUs = c.int("maxVUs", sc.MaxVUs, pre, 1)
	}
	if maxVUs < pre {
		c.failf("\"maxVUs\" (%d) must not be less than \"preAllocatedVUs\" (%d)", maxVUs, pre)
	}
	def := "drop"
	if poisson {
		def = "queue"
	}
	queue := c.onSaturation(sc.OnSaturation, def)
	// Every segment gets at least one VU, pre-allocated if the whole test pre-allocates
	// any, or a thin slice could never run (or would drop) its first arrivals.
	return arrivalPool{preAllocated: max(seg.Scale(pre), min(pre, 1)), maxVUs: max(seg.Scale(maxVUs), 1), queue: queue, seg: seg}
}

// arrival is one due iteration handed to a worker.
type arrival struct {
	n     uint64
	due   time.Time
	entry js.TraceEntry // the trace-replay entry, nil for the rate executors
	// then, when set, gives the iteration to run next on the same VU once this one
	// ends (a session's next turn, already due), or false.
	then func() (arrival, bool)
}

// feed is how a dispatcher reaches the pool's workers.
type feed struct {
	work chan<- arrival
	grow func()
	idle *atomic.Int64
}

// run dispatches the arrivals that this segment owns until they end or the scenario
// stops starting iterations.
func (a arrivalPool) run(s *scenario, next arrivals) {
	a.serve(s, func(f feed) { a.dispatch(s, next, f) })
}

// serve starts the pre-allocated VUs' workers, begins the scenario, runs dispatch and
// waits for the workers once it returns.
func (a arrivalPool) serve(s *scenario, dispatch func(feed)) {
	// Unbuffered: a send succeeds only when a worker is idle, which is exactly the
	// "is a VU free?" question, without a queue that could grow.
	work := make(chan arrival)
	done := make(chan struct{})
	var workers, growers sync.WaitGroup
	var allocated atomic.Int64
	var growing atomic.Bool
	// idle counts workers about to wait for work: "a VU is free" even in the instant
	// before its goroutine reaches the receive, so a just-started or just-finished VU
	// never makes an arrival look unserved.
	var idle atomic.Int64

	// ready, when set, is called once the worker counts as idle.
	startWorker := func(vu VU, ready func()) {
		allocated.Add(1)
		workers.Go(func() {
			defer s.run.pool.put(vu)
			for {
				idle.Add(1)
				if ready != nil {
					ready()
					ready = nil
				}
				select {
				case w := <-work:
					idle.Add(-1)
					for ok := true; ok; {
						s.iterate(s.iterCtx, vu, w.n, w.due, w.entry)
						ok = w.then != nil
						if ok {
							w, ok = w.then()
						}
					}
				case <-done:
					return
				}
			}
		})
	}
	// grow adds one VU in the background, one at a time, so initialising a VU never
	// delays the schedule.
	grow := func() {
		if allocated.Load() >= a.maxVUs || !growing.CompareAndSwap(false, true) {
			return
		}
		growers.Go(func() {
			defer growing.Store(false)
			if allocated.Load() >= a.maxVUs {
				return
			}
			vu, err := s.run.pool.get(s.startCtx)
			if err != nil {
				s.run.log.Error("cannot add a VU", "scenario", s.plan.Name, "error", err)
				return
			}
			startWorker(vu, nil)
		})
	}
	// The pre-allocated VUs are all idle before the first arrival is due, so none is
	// mistaken for busy while its goroutine starts.
	var ready sync.WaitGroup
	for range a.preAllocated {
		vu, err := s.run.pool.get(s.startCtx)
		if err != nil {
			s.run.log.Error("cannot get a VU", "scenario", s.plan.Name, "error", err)
			break
		}
		ready.Add(1)
		startWorker(vu, ready.Done)
	}
	ready.Wait()

	if s.begin() {
		dispatch(feed{work: work, grow: grow, idle: &idle})
		end := time.Now()
		s.scheduleEnded.Store(&end)
	}
	close(done)
	growers.Wait()
	workers.Wait()
}

// dispatch hands each due arrival to a free VU until the schedule ends or the scenario
// stops starting iterations. Every arrival due by then is started or dropped.
func (a arrivalPool) dispatch(s *scenario, next arrivals, f feed) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for i := int64(0); ; i++ {
		off, ok := next()
		if !ok {
			a.sleepUntil(s, timer, s.startAt.Add(off))
			return
		}
		if !a.seg.Owns(i) {
			continue
		}
		w := arrival{n: uint64(i), due: s.startAt.Add(off)}
		if !a.sleepUntil(s, timer, w.due) || a.start(s, w, f) == stopped {
			// Stopped: this arrival, if it is due, and every later one already due never started.
			s.drop(a.countDue(s, next, i, off))
			return
		}
	}
}

// sleepUntil waits until t unless the scenario stops starting iterations first, and
// reports whether it still starts them.
func (a arrivalPool) sleepUntil(s *scenario, timer *time.Timer, t time.Time) bool {
	if d := time.Until(t); d > 0 {
		timer.Reset(d)
		select {
		case <-timer.C:
		case <-s.startCtx.Done():
		}
	}
	return s.startCtx.Err() == nil
}

// outcome is what became of an arrival handed to start.
type outcome int

const (
	started outcome = iota
	dropped         // no VU was free (drop mode); counted
	stopped         // the scenario stopped before a VU took it; not counted yet
)

// start hands w to a free VU. With none free it adds one in the background and drops w
// or, in queue mode, waits for a VU.
func (a arrivalPool) start(s *scenario, w arrival, f feed) outcome {
	// A worker counted idle takes w as soon as it reaches its receive.
	if f.idle.Load() == 0 {
		f.grow()
		s.warnInsufficientVUs(a.queue)
		if !a.queue {
			s.noVU.Add(1)
			s.drop(1)
			return dropped
		}
	}
	// select picks at random between ready cases: a stop already in must win.
	if s.startCtx.Err() != nil {
		return stopped
	}
	select {
	case f.work <- w:
		return started
	case <-s.startCtx.Done():
		return stopped
	}
}

// countDue counts the owned arrivals due by now: arrival i, at offset off, and the ones
// after it.
func (a arrivalPool) countDue(s *scenario, next arrivals, i int64, off time.Duration) int64 {
	var n int64
	now := time.Since(s.startAt)
	for ok := true; ok && off <= now; off, ok = next() {
		if a.seg.Owns(i) {
			n++
		}
		i++
	}
	return n
}
