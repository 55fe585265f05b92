package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
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
	// now and sleep are the clock, for tests of the time cap.
	now   func() time.Time
	sleep func(context.Context, time.Duration)
}

// Sweep is one sweep: Run runs it once, Stop ends it after the current step.
type Sweep struct {
	o Options

	mu       sync.Mutex
	current  *testrun.Test
	stopping bool
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
		o.sleep = sleepCtx
	}
	return &Sweep{o: o}
}

// Stop stops the running step gracefully and starts no other (the first Ctrl-C).
func (s *Sweep) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopping = true
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
	res := &Result{Knob: plan.spec.Knob, Scenario: plan.target.name, Spec: plan.spec, Dir: o.Dir}
	started := o.now()
	code := s.steps(ctx, plan, res, started)
	res.Elapsed = o.now().Sub(started)
	if err := res.WriteText(o.Stdout); err != nil {
		return 0, err
	}
	if err := testrun.WriteFile(filepath.Join(o.Dir, "sweep.json"), res.WriteJSON); err != nil {
		o.Log.Error("sweep.json: " + err.Error())
	}
	if code != engine.ExitOK {
		return code, nil
	}
	if res.Pass == 0 {
		return engine.ExitThresholdsFailed, nil
	}
	return engine.ExitOK, nil
}

// steps runs the search's steps until it is over, the time is up or a step cannot be
// judged; the code is a step's that ended the sweep, else ExitOK.
func (s *Sweep) steps(ctx context.Context, p *plan, res *Result, started time.Time) engine.ExitCode {
	o := &s.o
	sr := newSearch(p.spec.Knob, p.spec.Min, p.spec.Max, p.spec.Factor, p.spec.Precision)
	stepTime := p.spec.Warmup + p.spec.Duration
	for n := 1; ; n++ {
		load, more := sr.next()
		if !more {
			res.Stop = sr.verdict()
			break
		}
		if used := o.now().Sub(started); used+stepTime > p.spec.MaxTime {
			res.Stop = fmt.Sprintf("time cap: %s used of --max-time %s, and a step takes %s", used.Round(time.Second), p.spec.MaxTime, stepTime)
			break
		}
		if s.stopped() {
			res.Stop = "stopped"
			return engine.ExitInterrupted
		}
		if n > 1 && o.NewMock == nil && p.spec.Cooldown > 0 {
			o.sleep(ctx, p.spec.Cooldown)
		}
		fmt.Fprintf(o.Stderr, "sweep: step %d: %s %s for %s + %s\n", n, p.spec.Knob.Format(load), p.spec.Knob.Unit(), p.spec.Warmup, p.spec.Duration)
		st, err := s.step(ctx, p, n, load)
		if err != nil {
			res.Stop = fmt.Sprintf("step %d did not run: %v", n, err)
			return engine.ExitCodeOf(err)
		}
		res.Steps = append(res.Steps, st)
		fmt.Fprintf(o.Stderr, "sweep: step %d: %s\n", n, st.summary(p.spec.Knob))
		switch st.Exit {
		case engine.ExitOK, engine.ExitThresholdsFailed, engine.ExitFailed:
		default: // not a verdict on the load: an exception, an abort, a stop
			res.Stop = fmt.Sprintf("step %d ended with exit code %d", n, st.Exit)
			return st.Exit
		}
		sr.record(load, st.Passed)
		res.Pass, res.Fail = sr.pass, sr.fail
		if st.Saturated {
			res.Stop = fmt.Sprintf("the client saturated at %s %s (%.0f%% of its %d cores busy): past it the client, not the server, is measured; run the load from more machines (docs/distributed.md)",
				p.spec.Knob.Format(load), p.spec.Knob.Unit(), 100*st.CPU, runtime.GOMAXPROCS(0))
			res.ClientSaturated = true
			break
		}
	}
	return engine.ExitOK
}

// step runs one load.
func (s *Sweep) step(ctx context.Context, p *plan, n int, load float64) (Step, error) {
	o := &s.o
	ro := o.Run
	raw, err := p.target.stepOptions(p.script, p.spec.Knob, load, p.spec.Warmup+p.spec.Duration)
	if err != nil {
		return Step{}, engine.Invalid(err)
	}
	file := filepath.Join(o.Dir, fmt.Sprintf("step-%02d-%s-%s.ndjson.gz", n, p.spec.Knob, p.spec.Knob.Format(load)))
	ro.Script = testrun.Script{Path: p.path, Options: raw, JS: o.Run.Script.JS}
	ro.Warmup, ro.Outs, ro.SummaryExport, ro.NoSummary, ro.Quiet, ro.NoVerdictLine = p.spec.Warmup, []string{"json=" + file}, "", true, true, true
	ro.Stderr, ro.Log = io.Discard, o.Log.With("step", n)
	if o.NewMock != nil {
		if ro.Omni.Mock, err = o.NewMock(); err != nil {
			return Step{}, engine.Invalid(err)
		}
	}
	t, err := testrun.Load(ro)
	if err != nil {
		return Step{}, err
	}
	defer t.Close()
	s.mu.Lock()
	s.current = t
	if s.stopping {
		t.Stop()
	}
	s.mu.Unlock()
	if _, err := t.Run(ctx); err != nil {
		return Step{}, err
	}
	s.mu.Lock()
	s.current = nil
	s.mu.Unlock()
	return newStep(n, load, file, t.Outcome()), nil
}

func (s *Sweep) stopped() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopping
}

// plan is what every step shares: the spec, the swept scenario and the script's options.
type plan struct {
	spec   Spec
	target target
	path   string
	script []byte
}

// prepare loads the script once to read its options.sweep, find the swept scenario and
// check that there are thresholds to judge the steps by.
func (s *Sweep) prepare() (*plan, error) {
	o := &s.o
	ro := o.Run
	if ro.Script.Path == "" {
		return nil, errors.New("sweep: no script")
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
	return &plan{spec: spec, target: tg, path: ro.Script.Path, script: script}, nil
}

func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
