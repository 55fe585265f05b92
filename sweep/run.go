package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/mock"
	"github.com/omnik-dev/omnik/testrun"
)

// Options are one sweep's.
type Options struct {
	// Run is every step's base: the script, -e, --config, --threshold, the target.
	// Its Outs, SummaryExport and Omni.Mock are the sweep's to set.
	Run testrun.Options
	// Flags is the command line's part of the Spec, applied over the script's.
	Flags func(*Spec)
	// NewMock, when set, makes a fresh simulator for each step, which then needs no
	// cool-down: nothing is left queued in a server that did not exist before.
	NewMock func() (*mock.Server, error)
	// Dir is where the steps' result files and sweep.json go.
	Dir string
	// Stdout gets the table; Stderr a line as each step starts and ends.
	Stdout, Stderr io.Writer
	Log            *slog.Logger
	// now and sleep are the clock, for tests of the time cap and the cool-down.
	now   func() time.Time
	sleep func(ctx context.Context, stop <-chan struct{}, d time.Duration)
}

// Sweep is one sweep: Run runs it once, Stop ends it after the current step.
type Sweep struct {
	o Options

	mu       sync.Mutex
	current  *testrun.Test
	stop     chan struct{} // closed by Stop
	stopOnce sync.Once
}

// New prepares a sweep.
func New(o Options) *Sweep {
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.now == nil {
		o.now = time.Now
	}
	if o.sleep == nil {
		o.sleep = sleep
	}
	return &Sweep{o: o, stop: make(chan struct{})}
}

// Stop stops the running step gracefully, or the cool-down at once, and starts no
// other step (the first Ctrl-C).
func (s *Sweep) Stop() {
	s.stopOnce.Do(func() { close(s.stop) })
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.current != nil {
		s.current.Stop()
	}
}

// Run runs the sweep, prints its table and writes sweep.json. The exit code is 0 when a
// load passed, 99 when even the lowest failed, and a step's own code when a step could
// not be judged (a script exception, test.abort(), Ctrl-C). Cancelling ctx stops the
// running step at once.
func (s *Sweep) Run(ctx context.Context) (engine.ExitCode, error) {
	o := &s.o
	plan, err := s.prepare()
	if err != nil {
		return 0, engine.Invalid(err)
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return 0, engine.Invalid(fmt.Errorf("sweep: %w", err))
	}
	res := &Result{Knob: plan.spec.Knob, Scenario: plan.target.name, Spec: plan.spec, Dir: o.Dir, Steps: []Step{}}
	started := o.now()
	code, err := s.steps(ctx, plan, res, started)
	res.Elapsed = o.now().Sub(started)
	if werr := res.WriteText(o.Stdout); werr != nil && err == nil {
		err = werr
	}
	if werr := testrun.WriteFile(filepath.Join(o.Dir, "sweep.json"), res.WriteJSON); werr != nil {
		o.Log.Error("sweep.json: " + werr.Error())
	}
	switch {
	case err != nil:
		return 0, err
	case code != engine.ExitOK:
		return code, nil
	case res.Pass == 0:
		return engine.ExitThresholdsFailed, nil
	}
	return engine.ExitOK, nil
}

// steps runs the search's steps until it is over, the time is up, the client is its
// own limit or a step cannot be judged; the code is a step's that ended the sweep,
// else ExitOK.
func (s *Sweep) steps(ctx context.Context, p *plan, res *Result, started time.Time) (engine.ExitCode, error) {
	o := &s.o
	sr := newSearch(p.spec.Knob, p.spec.Min, p.spec.Max, p.spec.Factor, p.spec.Precision)
	stepTime := p.target.startTime + p.spec.Warmup + p.spec.Duration
	for n := 1; ; n++ {
		load, more := sr.next()
		if !more {
			res.Stop = sr.verdict()
			return engine.ExitOK, nil
		}
		pause := time.Duration(0)
		if n > 1 && o.NewMock == nil {
			pause = p.spec.Cooldown
		}
		if used := o.now().Sub(started); used+pause+stepTime > p.spec.MaxTime {
			res.Stop = fmt.Sprintf("time cap: %s used of --max-time %s, and a step takes %s", used.Round(time.Second), p.spec.MaxTime, (pause + stepTime).Round(time.Second))
			return engine.ExitOK, nil
		}
		if pause > 0 {
			o.sleep(ctx, s.stop, pause)
		}
		if s.stopped() || ctx.Err() != nil {
			res.Stop, res.Interrupted = fmt.Sprintf("stopped before step %d", n), true
			return engine.ExitInterrupted, nil
		}
		fmt.Fprintf(o.Stderr, "sweep: step %d: %s %s for %s + %s\n", n, p.spec.Knob.Format(load), p.spec.Knob.Unit(), p.spec.Warmup, p.spec.Duration)
		st, err := s.step(ctx, p, n, load)
		if err != nil {
			res.Stop = fmt.Sprintf("step %d did not run: %v", n, err)
			return 0, err
		}
		switch st.Exit {
		case engine.ExitOK, engine.ExitThresholdsFailed, engine.ExitFailed:
		default: // not a verdict on the load: an exception, an abort, a stop
			res.Stop, res.Interrupted = fmt.Sprintf("step %d ended with exit code %d, unjudged (its file: %s)", n, st.Exit, st.File), true
			return st.Exit, nil
		}
		res.Steps = append(res.Steps, st)
		fmt.Fprintf(o.Stderr, "sweep: step %d: %s\n", n, st.summary(p.spec.Knob))
		if limit := st.clientLimit(); limit != "" {
			// A failure here may be the client's, so it bounds nothing; a pass stands.
			if st.Passed {
				sr.record(load, true)
			}
			res.Pass, res.Fail = sr.pass, sr.fail
			res.ClientLimited = true
			res.Stop = fmt.Sprintf("at %s %s %s: past it the client, not the server, is measured; run the load from more machines (docs/distributed.md)", p.spec.Knob.Format(load), p.spec.Knob.Unit(), limit)
			return engine.ExitOK, nil
		}
		sr.record(load, st.Passed)
		res.Pass, res.Fail = sr.pass, sr.fail
	}
}

// step runs one load.
func (s *Sweep) step(ctx context.Context, p *plan, n int, load float64) (Step, error) {
	file := filepath.Join(s.o.Dir, fmt.Sprintf("step-%02d-%s-%s.ndjson.gz", n, p.spec.Knob, p.spec.Knob.Format(load)))
	t, err := s.load(p, load, file)
	if err != nil {
		return Step{}, err
	}
	defer t.Close()
	s.mu.Lock()
	s.current = t
	if s.stopped() {
		t.Stop()
	}
	s.mu.Unlock()
	_, err = t.Run(ctx)
	s.mu.Lock()
	s.current = nil
	s.mu.Unlock()
	if err != nil {
		return Step{}, err
	}
	return newStep(n, load, file, p, t.Outcome()), nil
}

// load loads the script for one step at load, writing its results to file ("" for none),
// and checks that the step's options hold that load.
func (s *Sweep) load(p *plan, load float64, file string) (*testrun.Test, error) {
	o := &s.o
	ro := o.Run
	d := p.spec.Warmup + p.spec.Duration
	raw, err := p.target.stepOptions(p.script, p.spec.Knob, load, d)
	if err != nil {
		return nil, engine.Invalid(err)
	}
	ro.Script = testrun.Script{Path: p.path, Options: raw, JS: o.Run.Script.JS}
	// The warm-up counts from the swept scenario's own start.
	ro.Warmup = p.target.startTime + p.spec.Warmup
	ro.Outs, ro.SummaryExport, ro.NoSummary, ro.Quiet, ro.NoVerdictLine = nil, "", true, true, true
	if file != "" {
		ro.Outs = []string{"json=" + file}
	}
	// A step's own lines (the simulator's address) would repeat at every step; --http-debug
	// is what the user asked to see.
	if ro.HTTPDebug == "" {
		ro.Stderr = io.Discard
	}
	ro.Log = o.Log.With("load", p.spec.Knob.Format(load))
	if o.NewMock != nil {
		if ro.Omni.Mock, err = o.NewMock(); err != nil {
			return nil, engine.Invalid(err)
		}
	}
	t, err := testrun.Load(ro)
	if err != nil {
		return nil, err
	}
	if err := p.target.checkStep(t.Options(), p.spec.Knob, load, d); err != nil {
		t.Close()
		return nil, engine.Invalid(err)
	}
	return t, nil
}

func (s *Sweep) stopped() bool {
	select {
	case <-s.stop:
		return true
	default:
		return false
	}
}

// plan is what every step shares: the spec, the swept scenario and the script's options.
type plan struct {
	spec   Spec
	target target
	path   string
	script []byte
}

// prepare loads the script once to read its options.sweep, find the swept scenario and
// check that there are thresholds to judge the steps by, then the first step's options,
// so what a step would refuse is refused before anything runs.
func (s *Sweep) prepare() (*plan, error) {
	o := &s.o
	ro := o.Run
	if ro.Script.Path == "" {
		return nil, errors.New("sweep: no script")
	}
	if err := checkDir(o.Dir); err != nil {
		return nil, err
	}
	if o.NewMock != nil {
		var err error
		if ro.Omni.Mock, err = o.NewMock(); err != nil {
			return nil, err
		}
	}
	t, err := testrun.Load(ro)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	opts := t.Options()
	spec, err := ParseScriptSpec(opts.Modules["sweep"])
	if err != nil {
		return nil, err
	}
	if o.Flags != nil {
		o.Flags(&spec)
	}
	if err := spec.Check(); err != nil {
		return nil, err
	}
	if len(t.Thresholds()) == 0 {
		return nil, errors.New("sweep: the script has no thresholds, and a step passes or fails by them: add options.thresholds or --threshold")
	}
	script := t.Script().Options()
	tg, err := findTarget(opts, script, spec)
	if err != nil {
		return nil, err
	}
	p := &plan{spec: spec, target: tg, path: ro.Script.Path, script: script}
	first, err := s.load(p, newSearch(spec.Knob, spec.Min, spec.Max, spec.Factor, spec.Precision).first(), "")
	if err != nil {
		return nil, err
	}
	first.Close()
	return p, nil
}

// checkDir refuses a directory that holds another sweep's steps: their files would mix.
func checkDir(dir string) error {
	old, _ := filepath.Glob(filepath.Join(dir, "step-*.ndjson.gz"))
	if len(old) > 0 {
		return fmt.Errorf("sweep: %s holds another sweep's steps (%s, …): choose another --out-dir, or empty it", dir, filepath.Base(old[0]))
	}
	return nil
}

// sleep waits d, or less when ctx ends or stop is closed.
func sleep(ctx context.Context, stop <-chan struct{}, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-stop:
	case <-ctx.Done():
	}
}
