package engine

import (
	"log/slog"
	"time"

	"github.com/omnik-dev/omnik/metrics"
)

// Option configures a Run.
type Option func(*Run)

// WithMetrics sends the engine's samples (vus, vus_max, dropped_iterations,
// schedule_lag) to c, using the built-in metrics b.
func WithMetrics(c metrics.Collector, b *metrics.Builtin) Option {
	return func(r *Run) {
		if b != nil {
			r.collector, r.builtin = c, b
		}
	}
}

// WithLogger logs warnings (insufficient VUs) and errors that do not stop the run.
func WithLogger(l *slog.Logger) Option { return func(r *Run) { r.log = l } }

// WithSegment runs only segment seg of the test (see Segment); the default is all of it.
func WithSegment(seg Segment) Option { return func(r *Run) { r.segment = seg } }

// TickFunc is called about every second while scenarios run, with the time since they
// started. Returning abort = true stops the run like test.abort() but with exit code 99:
// it is how thresholds with abortOnFail stop a run.
type TickFunc func(elapsed time.Duration) (abort bool, reason string)

// OnTick sets the periodic hook and how often it runs (0 means every second).
func OnTick(every time.Duration, f TickFunc) Option {
	return func(r *Run) {
		if every > 0 {
			r.tickEvery = every
		}
		r.onTick = f
	}
}

// WithProgress redraws p while the run lasts; without it nothing is printed (--quiet).
func WithProgress(p *Progress) Option { return func(r *Run) { r.progressOut = p } }

// WithStartAt holds the scenarios until t, once VUs are initialised and setup() has run,
// so the pieces of a distributed run share one time zero however late each came up. A t
// already past starts at once.
func WithStartAt(t time.Time) Option { return func(r *Run) { r.startAt = t } }

// OnScenarios calls begin with the time the scenarios begin, before any of them starts
// (where a measured window that leaves out VU init and setup() counts from), and end when
// the last of them ended, before teardown. Either may be nil.
func OnScenarios(begin, end func(at time.Time)) Option {
	return func(r *Run) { r.onBegin, r.onEnd = begin, end }
}
