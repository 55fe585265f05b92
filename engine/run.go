package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/omnik-dev/omnik/internal/cputime"
	"github.com/omnik-dev/omnik/js"
	"github.com/omnik-dev/omnik/metrics"
)

// Run is one execution of a test: init VUs → setup → scenarios → teardown. It is a
// value with no global state, so a process can build and run several (sweeps); each
// Run runs once. It implements js.Controller.
type Run struct {
	script Script
	opts   Options
	plan   *ExecutionPlan

	// Set by options.
	collector   metrics.Collector
	builtin     *metrics.Builtin
	log         *slog.Logger
	segment     Segment
	tickEvery   time.Duration
	onTick      TickFunc
	onBegin     func(time.Time)
	onEnd       func(time.Time)
	progressOut *Progress
	startAt     time.Time // WithStartAt; zero: start when ready
	// clientSampler reads the client's own load each tick (WithClientSampler); nil: the
	// process's, with a lag probe, once the scenarios begin.
	clientSampler ClientSampler

	pool         *pool
	scenarios    []*scenario
	minIteration time.Duration
	setupData    js.SetupData
	began        atomic.Int64 // unix nanoseconds when scenarios began, 0 before
	ended        atomic.Int64 // unix nanoseconds when they ended, 0 before
	iterErrors   *iterationErrors

	stopOnce sync.Once
	stopped  chan struct{} // closed by Stop

	mu          sync.Mutex
	interrupt   context.CancelFunc // cancels every iteration: set while Run runs
	abortCode   ExitCode
	abortReason string
	failReason  string
	failed      bool
	ran         bool
}

var _ js.Controller = (*Run)(nil)

// New prepares a run of script with consolidated options o (see Consolidate).
func New(script Script, o Options, options ...Option) (*Run, error) {
	r := &Run{
		script: script, opts: o, builtin: &metrics.Builtin{},
		log: slog.New(slog.DiscardHandler), tickEvery: time.Second,
		stopped: make(chan struct{}),
	}
	for _, opt := range options {
		opt(r)
	}
	r.iterErrors = newIterationErrors(r.log, time.Now)
	if len(o.Scenarios) == 0 {
		return nil, optionsErrorf("no scenarios: pass the options through Consolidate first")
	}
	plan, err := NewPlan(o, r.segment)
	if err != nil {
		return nil, err
	}
	r.plan = plan
	r.pool = newPool(script.NewVU)
	r.minIteration = orZero(o.MinIterationDuration)
	for i := range plan.Scenarios {
		r.scenarios = append(r.scenarios, newScenario(r, &plan.Scenarios[i]))
	}
	return r, nil
}

// Plan returns the execution plan the run follows.
func (r *Run) Plan() *ExecutionPlan { return r.plan }

// Result is what a finished run reports.
type Result struct {
	IterationsCompleted   int64
	IterationsInterrupted int64
	IterationsDropped     int64
	// DroppedNoVU are the dropped iterations that were arrivals finding every VU busy
	// (maxVUs reached), not work left when a scenario ended or stopped.
	DroppedNoVU int64
	// Duration is the time the scenarios ran, without init, setup and teardown.
	Duration  time.Duration
	Scenarios []ScenarioProgress
	// Interrupted: the run ended before its plan did (Stop, a cancelled context, an
	// abort).
	Interrupted bool
	// AbortReason is set when test.abort() or an abortOnFail threshold stopped the run;
	// AbortCode is then ExitAborted or ExitThresholdsFailed.
	AbortReason string
	AbortCode   ExitCode
	// Failed is set by test.fail(); FailReason is its message.
	Failed     bool
	FailReason string
	// Err is an exception in VU init, setup or teardown (an *ExitError).
	Err error
}

// ExitCodeFor is the process exit code of a finished run: the one place that decides
// its precedence (docs/cli.md). Exceptions first, then an abort (test.abort, or an
// abortOnFail threshold), then a stop (Ctrl-C), then failed thresholds, then test.fail(),
// then a failing handleSummary.
func ExitCodeFor(res Result, thresholdsPassed bool, summaryErr error) ExitCode {
	switch {
	case res.Err != nil:
		return ExitCodeOf(res.Err)
	case res.AbortCode != 0:
		return res.AbortCode
	case res.Interrupted:
		return ExitInterrupted
	case !thresholdsPassed:
		return ExitThresholdsFailed
	case res.Failed:
		return ExitFailed
	case summaryErr != nil:
		return ExitScriptException
	}
	return ExitOK
}

// Run executes the test. Cancelling ctx is a hard stop: running iterations are
// interrupted at once and teardown is skipped. For a graceful stop, call Stop.
func (r *Run) Run(parent context.Context) Result {
	ctx, interrupt := context.WithCancel(parent)
	defer interrupt()
	r.mu.Lock()
	if r.ran {
		r.mu.Unlock()
		return Result{Err: errors.New("engine: a Run can only run once")}
	}
	r.ran, r.interrupt = true, interrupt
	if r.abortCode != 0 {
		interrupt()
	}
	r.mu.Unlock()

	if err := r.pool.fill(ctx, r.plan.PlannedVUs); err != nil {
		if ctx.Err() != nil {
			return r.result(parent, nil)
		}
		return r.result(parent, &ExitError{Code: ExitScriptException, Err: err})
	}
	err := r.setup(ctx)
	if err == nil && ctx.Err() == nil && !r.isStopped() && r.waitForStart(ctx) {
		r.runScenarios(ctx)
	}
	// After a graceful stop or an abort teardown still runs; after a hard stop it does not.
	if err == nil && parent.Err() == nil {
		err = r.teardown(parent)
	}
	return r.result(parent, err)
}

// waitForStart holds until the WithStartAt time; false when the run was stopped meanwhile.
func (r *Run) waitForStart(ctx context.Context) bool {
	d := time.Until(r.startAt)
	if r.startAt.IsZero() || d <= 0 {
		return true
	}
	r.log.Info(fmt.Sprintf("VUs ready; holding until --start-at %s (%s from now)", r.startAt.UTC().Format(time.RFC3339Nano), d.Round(time.Millisecond)))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return !r.isStopped()
	case <-r.stopped:
	case <-ctx.Done():
	}
	return false
}

// setup runs the script's setup() within setupTimeout. An abort during setup is not an
// exception: the run goes on to teardown.
func (r *Run) setup(ctx context.Context) error {
	if r.script.Setup == nil {
		return nil
	}
	timeout := orDefault(r.opts.SetupTimeout, DefaultSetupTimeout)
	sctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	data, err := r.script.Setup(sctx)
	switch {
	case err == nil:
		r.setupData = data
		return nil
	case ctx.Err() != nil:
		return nil
	case errors.Is(sctx.Err(), context.DeadlineExceeded):
		return exitErrorf(ExitScriptException, "setup() did not finish within setupTimeout (%s)", timeout)
	}
	return &ExitError{Code: ExitScriptException, Err: fmt.Errorf("setup(): %w", err)}
}

// teardown runs the script's teardown(data) within teardownTimeout.
func (r *Run) teardown(parent context.Context) error {
	if r.script.Teardown == nil {
		return nil
	}
	timeout := orDefault(r.opts.TeardownTimeout, DefaultTeardownTimeout)
	tctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	err := r.script.Teardown(tctx, r.setupData)
	switch {
	case err == nil || parent.Err() != nil:
		return nil
	case errors.Is(tctx.Err(), context.DeadlineExceeded):
		return exitErrorf(ExitScriptException, "teardown() did not finish within teardownTimeout (%s)", timeout)
	}
	return &ExitError{Code: ExitScriptException, Err: fmt.Errorf("teardown(): %w", err)}
}

// runScenarios runs every scenario at its startTime and watches the run meanwhile.
func (r *Run) runScenarios(ctx context.Context) {
	began := time.Now()
	if r.onBegin != nil {
		r.onBegin(began)
	}
	r.began.Store(began.UnixNano())
	watchCtx, stopWatching := context.WithCancel(ctx)
	var watchers sync.WaitGroup
	sample := r.clientSampler
	if sample == nil && r.collector != nil {
		probe := cputime.NewLagProbe()
		watchers.Go(func() { probe.Run(watchCtx) })
		sample = newProcessSampler(probe).read
	}
	watchers.Go(func() { r.monitor(watchCtx, sample) })
	if p := r.progressOut; p != nil {
		watchers.Go(func() { p.run(watchCtx, r.Progress) })
	}
	var wg sync.WaitGroup
	for _, s := range r.scenarios {
		wg.Go(func() { r.runScenario(ctx, s) })
	}
	wg.Wait()
	ended := time.Now()
	if r.onEnd != nil {
		r.onEnd(ended)
	}
	r.ended.Store(ended.UnixNano())
	r.iterErrors.flush()
	stopWatching()
	watchers.Wait()
	r.emitGauges(time.Now())
}

// runScenario waits for the scenario's startTime, then runs its executor. When the
// executor's duration ends or Stop is called, the scenario starts no more iterations and
// interrupts the running ones gracefulStop later.
func (r *Run) runScenario(ctx context.Context, s *scenario) {
	defer s.finish()
	if st := s.plan.StartTime.D(); st > 0 {
		t := time.NewTimer(st)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.stopped:
			return
		case <-ctx.Done():
			return
		}
	}
	// The duration's deadline is armed by the executor's begin, once its VUs are ready.
	startCtx, stopStarting := context.WithCancel(ctx)
	defer stopStarting()
	iterCtx, interruptAll := context.WithCancel(ctx)
	defer interruptAll()
	s.startCtx, s.iterCtx, s.stopStarting = startCtx, iterCtx, stopStarting
	go func() {
		select {
		case <-startCtx.Done():
		case <-r.stopped:
			stopStarting()
		}
		t := time.NewTimer(s.plan.GracefulStop.D())
		defer t.Stop()
		select {
		case <-t.C:
			interruptAll()
		case <-iterCtx.Done():
		}
	}()
	s.plan.exec.run(s)
}

func (r *Run) isStopped() bool {
	select {
	case <-r.stopped:
		return true
	default:
		return false
	}
}

func (r *Run) result(parent context.Context, err error) Result {
	res := Result{Err: err, Scenarios: r.Progress(), Duration: r.elapsed()}
	for _, s := range r.scenarios {
		res.IterationsCompleted += s.completed.Load()
		res.IterationsInterrupted += s.interrupted.Load()
		res.IterationsDropped += s.dropped.Load()
		res.DroppedNoVU += s.noVU.Load()
	}
	r.mu.Lock()
	res.AbortCode, res.AbortReason, res.Failed, res.FailReason = r.abortCode, r.abortReason, r.failed, r.failReason
	r.mu.Unlock()
	res.Interrupted = parent.Err() != nil || r.isStopped() || res.AbortCode != 0
	return res
}
