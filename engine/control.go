package engine

import (
	"time"

	"github.com/omnik-dev/omnik/js"
)

// Stop stops the run gracefully (first Ctrl-C): scenarios start no more iterations,
// running ones get their gracefulStop, scenarios not yet started never start, and
// teardown runs. It may be called any time, more than once.
func (r *Run) Stop() { r.stopOnce.Do(func() { close(r.stopped) }) }

// Abort stops the run now (test.abort): running iterations are interrupted, teardown
// runs, the exit code is 108.
func (r *Run) Abort(reason string) { r.abort(ExitAborted, reason) }

// Fail marks the run failed (test.fail) and lets it continue; the exit code is 110.
func (r *Run) Fail(reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.failed {
		r.failed, r.failReason = true, reason
	}
}

// abort records the first abort and interrupts everything.
func (r *Run) abort(code ExitCode, reason string) {
	r.mu.Lock()
	if r.abortCode == 0 {
		r.abortCode, r.abortReason = code, reason
	}
	interrupt := r.interrupt
	r.mu.Unlock()
	if interrupt != nil {
		interrupt()
	}
}

// Stats is the live view of the run for omnik/execution.instance.
func (r *Run) Stats() js.InstanceStats {
	st := js.InstanceStats{
		VUsActive:       r.pool.borrowed.Load(),
		VUsInitialized:  r.pool.initialized.Load(),
		TestRunDuration: r.elapsed(),
	}
	for _, s := range r.scenarios {
		st.IterationsCompleted += s.completed.Load()
		st.IterationsInterrupted += s.interrupted.Load()
	}
	return st
}

// ScenariosRunning reports whether the scenarios have begun and whether they have ended:
// the server's pages read before they began (VU init, setup) are not the run's.
func (r *Run) ScenariosRunning() (began, ended bool) {
	return r.began.Load() != 0, r.ended.Load() != 0
}

// elapsed is the time since the scenarios began, until they ended.
func (r *Run) elapsed() time.Duration {
	began := r.began.Load()
	if began == 0 {
		return 0
	}
	if ended := r.ended.Load(); ended != 0 {
		return time.Duration(ended - began)
	}
	return time.Since(time.Unix(0, began))
}
