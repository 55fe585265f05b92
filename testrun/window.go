package testrun

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/omnik-dev/omnik/internal/cputime"
	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// window is the measured part of a run: what starts Options.Warmup after the scenarios
// began. Everything the summary, the thresholds and the files see passes through it, so
// a warm-up is out of all of them alike; with no warm-up it lets everything through.
type window struct {
	warmup time.Duration
	origin time.Time
	// began is when the scenarios began, nil before: until then nothing is measured
	// (VU init and setup() are not a steady load). A time.Time keeps the monotonic
	// reading samples and records are compared on.
	began atomic.Pointer[time.Time]
	// skipped counts the warm-up's requests, which the End line reports.
	skipped atomic.Int64
	// load is the client's own load while the scenarios ran (Outcome): the readings at
	// their start, and what followed until they ended.
	load struct {
		mu         sync.Mutex
		cpuBegin   time.Duration
		cpuOK      bool
		waitsBegin cputime.Waits
		waitsOK    bool
		cpu, wait  time.Duration
	}
}

func newWindow(warmup time.Duration, origin time.Time) *window {
	return &window{warmup: max(warmup, 0), origin: origin}
}

// start marks when the scenarios began.
func (w *window) start(at time.Time) {
	l := &w.load
	l.mu.Lock()
	l.cpuBegin, l.cpuOK = cputime.Process()
	l.waitsBegin, l.waitsOK = cputime.ReadWaits()
	l.mu.Unlock()
	w.began.Store(&at)
}

// end marks when the scenarios ended: the client's load is read up to there, not
// through teardown and the summary.
func (w *window) end(time.Time) {
	l := &w.load
	l.mu.Lock()
	defer l.mu.Unlock()
	if now, ok := cputime.Process(); ok && l.cpuOK {
		l.cpu = now - l.cpuBegin
	}
	if now, ok := cputime.ReadWaits(); ok && l.waitsOK {
		l.wait = now.MeanSince(l.waitsBegin)
	}
}

// from is where the measured window begins; ok is false before the scenarios began.
func (w *window) from() (at time.Time, ok bool) {
	b := w.began.Load()
	if b == nil {
		return time.Time{}, false
	}
	return b.Add(w.warmup), true
}

// offset is from on the run's timeline (records' Offset); ok as from's.
func (w *window) offset() (time.Duration, bool) {
	at, ok := w.from()
	return at.Sub(w.origin), ok
}

// measures reports whether something at t is in the window.
func (w *window) measures(t time.Time) bool {
	if w.warmup == 0 {
		return true
	}
	from, ok := w.from()
	return ok && !t.Before(from)
}

// records hands subs only the records that ended in the window: the rule of the points
// (an iteration's, a check's, stamped when they happen) and of the server's counters
// (a request counts when it completes), so all of them count the same requests.
func (w *window) records(subs ...record.Subscriber) record.Subscriber {
	return record.SubscriberFunc(func(r *record.Record) {
		if !w.measures(w.origin.Add(r.Offset + r.End)) {
			w.skipped.Add(1)
			return
		}
		for _, s := range subs {
			s.Add(r)
		}
	})
}

// samples hands c only the samples of the window. The batch is its caller's, so a
// batch that loses samples is copied.
func (w *window) samples(c metrics.Collector) metrics.Collector {
	if w.warmup == 0 {
		return c
	}
	return metrics.CollectorFunc(func(batch []metrics.Sample) {
		var keep []metrics.Sample // nil while nothing was dropped
		for i, s := range batch {
			switch {
			case !w.measures(s.Time):
				if keep == nil {
					keep = append(make([]metrics.Sample, 0, len(batch)), batch[:i]...)
				}
			case keep != nil:
				keep = append(keep, s)
			}
		}
		if keep == nil {
			keep = batch
		}
		if len(keep) > 0 {
			c.Collect(keep)
		}
	})
}

// measured is d, a time the scenarios ran, less the warm-up.
func (w *window) measured(d time.Duration) time.Duration { return max(d-w.warmup, 0) }
