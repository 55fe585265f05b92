package engine

import (
	"sync"
	"sync/atomic"
	"time"
)

// arrivals yields the offsets, from the scenario start, at which the iterations of the
// whole test are due, in order; ok is false after the last one. Offsets are absolute, so
// a slow iteration never shifts the ones after it.
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
	// Every segment gets at least one VU, or a thin slice could never run its arrivals.
	return arrivalPool{preAllocated: seg.Scale(pre), maxVUs: max(seg.Scale(maxVUs), 1), queue: queue, seg: seg}
}

// arrival is one due iteration handed to a worker.
type arrival struct {
	n   uint64
	due time.Time
}

// run dispatches the arrivals that this segment owns until they end or the scenario
// stops starting iterations.
func (a arrivalPool) run(s *scenario, next arrivals) {
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
					s.iterate(s.iterCtx, vu, w.n, w.due)
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

	a.dispatch(s, next, work, grow, &idle)
	close(done)
	growers.Wait()
	workers.Wait()
}

func (a arrivalPool) dispatch(s *scenario, next arrivals, work chan<- arrival, grow func(), idle *atomic.Int64) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	stop := s.startCtx.Done()
	for i := int64(0); ; i++ {
		off, ok := next()
		if !ok {
			return
		}
		if !a.seg.Owns(i) {
			continue
		}
		w := arrival{n: uint64(i), due: s.startAt.Add(off)}
		if d := time.Until(w.due); d > 0 {
			timer.Reset(d)
			select {
			case <-timer.C:
			case <-stop:
				return
			}
		}
		if idle.Load() > 0 {
			// A worker is free: it takes w as soon as it reaches its receive.
			select {
			case work <- w:
				continue
			case <-stop:
				// Due but not started when the scenario stopped: dropped, like the due ones after it.
				s.drop(1 + a.countDue(s, next, i+1))
				return
			}
		}
		grow()
		s.warnInsufficientVUs(a.queue)
		if !a.queue {
			s.drop(1)
			continue
		}
		select {
		case work <- w:
		case <-stop:
			// The queued arrival and every later one already due never started.
			s.drop(1 + a.countDue(s, next, i+1))
			return
		}
	}
}

// countDue counts the owned arrivals from index i on that are due by now.
func (a arrivalPool) countDue(s *scenario, next arrivals, i int64) int64 {
	var n int64
	now := time.Since(s.startAt)
	for ; ; i++ {
		off, ok := next()
		if !ok || off > now {
			return n
		}
		if a.seg.Owns(i) {
			n++
		}
	}
}
