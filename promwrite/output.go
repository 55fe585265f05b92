// Package promwrite is the --out prometheus=URL output: it folds the run's samples into
// cumulative series (counter sums, gauges' last values, trends as histograms) and
// pushes them all by Prometheus remote write (protocol v1) at a fixed interval and once
// at the end. It never blocks the pipeline: a batch it cannot take is dropped and
// counted, a push that is slow or fails holds up nothing but the next push, and Stop
// says what was lost.
//
// The protocol is the Prometheus project's own client (client_golang's exp/api/remote,
// with prometheus/prompb's message types): snappy, headers and retries as the
// specification says, no hand-written protobuf.
package promwrite

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/omnik-dev/omnik/metrics"
)

// Output is the remote-write output. It implements metrics.Output.
type Output struct {
	desc   string
	cfg    *Config
	set    settings
	st     *state
	sender *sender
	in     chan []metrics.Sample

	mu      sync.RWMutex // orders AddSamples against Stop's close(in)
	started bool
	stopped bool

	bufferFull atomic.Int64 // samples dropped: the buffer was full
	late       atomic.Int64 // samples given after Stop
	capped     atomic.Int64 // samples of series past max_series (the fold's count, mirrored)
	unsent     atomic.Int64 // points of failed pushes

	// Owned by the fold goroutine (run) until done is closed.
	ticks      <-chan time.Time
	stopTicker func()
	jobs       chan *push
	outcomes   chan outcome
	busy       bool // a push is in flight
	lastTS     int64
	pushes     int64
	failed     int64
	skipped    int64
	firstErr   error
	finalErr   error
	done       chan struct{}
}

var _ metrics.Output = (*Output)(nil)

type settings struct {
	log    *slog.Logger
	getenv func(string) string
	now    func() time.Time // the pushes' timestamps and the generated testid
	ticks  <-chan time.Time // nil: a ticker of the interval
	buffer int
	// handled, when set, hears every push's outcome once the fold goroutine took it,
	// so tests tick only when the sender is idle.
	handled func(err error, idle bool)
}

// Option configures an Output.
type Option func(*settings)

// WithLogger receives the output's notes: where it pushes, its first failure, the
// switch to classic histograms.
func WithLogger(l *slog.Logger) Option { return func(s *settings) { s.log = l } }

// WithEnv replaces os.Getenv for the credential variables.
func WithEnv(getenv func(string) string) Option { return func(s *settings) { s.getenv = getenv } }

// New parses spec (see ParseSpec) and returns the output, not yet started.
func New(spec string, opts ...Option) (*Output, error) {
	set := settings{log: slog.New(slog.DiscardHandler), getenv: os.Getenv, now: time.Now, buffer: 4096}
	for _, opt := range opts {
		opt(&set)
	}
	cfg, err := ParseSpec(spec, set.getenv)
	if err != nil {
		return nil, err
	}
	o := &Output{desc: RedactSpec(spec), cfg: cfg, set: set, in: make(chan []metrics.Sample, set.buffer),
		jobs: make(chan *push, 1), outcomes: make(chan outcome, 1), done: make(chan struct{})}
	if o.sender, err = newSender(cfg); err != nil {
		return nil, fmt.Errorf("output %s: %w", o.desc, err)
	}
	return o, nil
}

// Description implements metrics.Output: the spec, credentials redacted.
func (o *Output) Description() string { return o.desc }

// Start implements metrics.Output: it starts the fold and push goroutines and the
// interval's ticker. It does not reach the receiver: one that is down costs pushes,
// counted, not the run.
func (o *Output) Start() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.started || o.stopped {
		return fmt.Errorf("output %s: started twice or after Stop", o.desc)
	}
	o.started = true
	start := o.set.now()
	id := "omnik-" + start.UTC().Format("20060102-150405")
	o.st = newState(o.cfg, id, start.UnixMilli())
	o.lastTS = start.UnixMilli() // pushes come after the zeros at the start
	o.ticks, o.stopTicker = o.set.ticks, func() {}
	if o.ticks == nil {
		t := time.NewTicker(o.cfg.Interval)
		o.ticks, o.stopTicker = t.C, t.Stop
	}
	note := "testid=" + o.cfg.TestID
	if o.cfg.TestID == "" {
		note = "testid=" + id + " (a testid tag, or testid= in the spec, sets another)"
	}
	o.set.log.Info(fmt.Sprintf("--out %s: pushing every %v (timeout %v, histograms %v), %s", o.desc, o.cfg.Interval, o.cfg.Timeout, o.cfg.Mode, note))
	go o.sendLoop()
	go o.run()
	return nil
}

// AddSamples implements metrics.Output. It only hands the batch over: measured and
// derived samples alike, since this output writes no records to derive them from.
func (o *Output) AddSamples(s []metrics.Sample, _ bool) {
	if len(s) == 0 {
		return
	}
	o.mu.RLock()
	defer o.mu.RUnlock()
	if o.stopped {
		o.late.Add(int64(len(s)))
		return
	}
	select {
	case o.in <- s:
	default:
		o.bufferFull.Add(int64(len(s)))
	}
}

// AddEntry implements metrics.Output: records and the run's header are not metrics.
func (o *Output) AddEntry(metrics.Entry) {}

// Lost implements metrics.Output: samples not folded (buffer full, past the series
// cap, after Stop) and the points of pushes that failed.
func (o *Output) Lost() int64 {
	return o.bufferFull.Load() + o.late.Load() + o.capped.Load() + o.unsent.Load()
}

// Stop implements metrics.Output: it folds what is buffered, waits for a push in
// flight, then pushes the final state. It returns within twice the timeout; its error
// names the output and says what was lost.
func (o *Output) Stop() error {
	o.mu.Lock()
	if o.stopped {
		o.mu.Unlock()
		return nil
	}
	o.stopped = true
	close(o.in)
	started := o.started
	o.mu.Unlock()
	if !started {
		return nil
	}
	<-o.done
	return o.report()
}

func (o *Output) run() {
	defer close(o.done)
	for {
		select {
		case b, ok := <-o.in:
			if !ok {
				o.finish()
				return
			}
			o.st.fold(b)
			o.capped.Store(o.st.capped)
		case <-o.ticks:
			if o.busy {
				o.skipped++
				continue
			}
			if !o.foldBuffered() {
				o.finish()
				return
			}
			o.dispatch(false, time.Now().Add(o.cfg.Timeout))
		case r := <-o.outcomes:
			o.busy = false
			o.handle(r, true)
			if o.set.handled != nil {
				o.set.handled(r.err, !o.busy)
			}
		}
	}
}

// foldBuffered folds the batches buffered when a tick comes, so a push carries every
// batch handed over before it; false when Stop closed the buffer meanwhile.
func (o *Output) foldBuffered() bool {
	for n := len(o.in); n > 0; n-- {
		b, ok := <-o.in
		if !ok {
			return false
		}
		o.st.fold(b)
	}
	o.capped.Store(o.st.capped)
	return true
}

// finish waits for the push in flight (its outcome is superseded: no resend), then
// pushes the final state, a classic resend included, within one timeout.
func (o *Output) finish() {
	o.stopTicker()
	if o.busy {
		o.busy = false
		o.handle(<-o.outcomes, false)
	}
	o.dispatch(true, time.Now().Add(o.cfg.Timeout))
	for o.busy {
		o.busy = false
		o.handle(<-o.outcomes, true)
	}
	close(o.jobs)
	o.sender.transport.CloseIdleConnections()
}

// dispatch builds a push of the whole state and hands it to the sender, which is idle.
func (o *Output) dispatch(final bool, deadline time.Time) {
	ts := max(o.set.now().UnixMilli(), o.lastTS+1) // a series' samples must move forward
	o.lastTS = ts
	o.pushes++
	p := o.st.build(ts, selfCounts{bufferFull: o.bufferFull.Load(), capped: o.st.capped,
		pushes: o.pushes, failed: o.failed, skipped: o.skipped})
	p.final, p.deadline = final, deadline
	o.busy = true
	o.jobs <- p
}

func (o *Output) sendLoop() {
	for p := range o.jobs {
		ctx, cancel := context.WithDeadline(context.Background(), p.deadline)
		r := o.sender.send(ctx, p, o.cfg.Mode == Auto)
		cancel()
		o.outcomes <- r
	}
}

// handle takes a push's outcome. A refusal of native histograms in auto mode switches
// to classic ones for the rest of the run and, with resend, sends the state again
// at once (the final push within its own deadline).
func (o *Output) handle(r outcome, resend bool) {
	if r.refused && o.st.mode == Auto {
		o.st.toClassic(r.p)
		o.set.log.Warn(fmt.Sprintf("--out %s: the receiver refuses native histograms (%v); sending classic ones (_bucket, _sum, _count) for the rest of the run", o.desc, r.err))
		if resend {
			deadline := time.Now().Add(o.cfg.Timeout)
			if r.p.final {
				deadline = r.p.deadline
			}
			o.dispatch(r.p.final, deadline)
		}
		return
	}
	if r.err == nil {
		return
	}
	o.failed++
	o.unsent.Add(int64(r.unsent))
	if o.firstErr == nil {
		o.firstErr = r.err
		o.set.log.Warn(fmt.Sprintf("--out %s: a push failed (%v); the next one sends the whole state again (said once, counted at the end)", o.desc, r.err))
	}
	if r.p.final {
		o.finalErr = r.err
	}
}

// report says what the run lost, or nil when it lost nothing (skipped pushes alone are
// a warning in the log).
func (o *Output) report() error {
	var parts []string
	if o.failed > 0 {
		s := fmt.Sprintf("%d of %d pushes failed, %d points not delivered", o.failed, o.pushes, o.unsent.Load())
		if o.finalErr != nil {
			s += fmt.Sprintf("; the final push failed, so the receiver lacks the end of the run: %v", o.finalErr)
		} else {
			s += fmt.Sprintf(" (first error: %v)", o.firstErr)
		}
		parts = append(parts, s)
	}
	skipped := ""
	if o.skipped > 0 {
		skipped = fmt.Sprintf("%d pushes skipped: the one before was still in flight (interval %v, timeout %v)", o.skipped, o.cfg.Interval, o.cfg.Timeout)
	}
	if n := o.st.capped; n > 0 {
		refused := fmt.Sprint(len(o.st.refused))
		if o.st.refusedMore {
			refused += "+"
		}
		parts = append(parts, fmt.Sprintf("%d samples of %s new series dropped past the max_series cap of %d (move high-cardinality tags to metadata, or raise max_series)", n, refused, o.cfg.MaxSeries))
	}
	if n := o.bufferFull.Load(); n > 0 {
		parts = append(parts, fmt.Sprintf("%d samples dropped: its buffer was full", n))
	}
	if n := o.late.Load(); n > 0 {
		parts = append(parts, fmt.Sprintf("%d samples came after it stopped", n))
	}
	if len(parts) == 0 {
		// Skipped pushes lose no data, only resolution: the next push carries it.
		if skipped != "" {
			o.set.log.Warn(fmt.Sprintf("--out %s: %s; the series have gaps, no loss", o.desc, skipped))
		}
		return nil
	}
	if skipped != "" {
		parts = append(parts, skipped)
	}
	return fmt.Errorf("output %s: %s", o.desc, strings.Join(parts, "; "))
}
