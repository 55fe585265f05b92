package main

import (
	"fmt"
	"time"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/sweep"
	"github.com/omnik-dev/omnik/testrun"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// sweepFlags are `omnik sweep`'s flags: the script's (no load flags: the sweep sets
// the load), the target's, and the search's, which override options.sweep.
type sweepFlags struct {
	testFlags
	verbose   bool
	omni      omniFlags
	rate, vus string
	scenario  string
	factor    float64
	precision string
	warmup    time.Duration
	duration  time.Duration
	maxTime   time.Duration
	cooldown  time.Duration
	outDir    string
	httpDebug string
}

func newSweepCommand() *cobra.Command {
	var f sweepFlags
	cmd := &cobra.Command{
		Use:   "sweep [flags] SCRIPT",
		Short: "Find the highest load at which every threshold passes",
		Long: `Run the script's scenario again and again at different loads (an arrival rate or a
number of VUs) and search for the highest one whose thresholds all pass: up by a factor
until a step fails, then bisection to the precision. Each step runs a warm-up, left out,
then a measured window, and writes its result file. Prints one table and the answer;
exit 0 when a load passed, 99 when even the lowest failed. docs/sweep.md.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if err := f.omni.servers.strayURL(args); err != nil {
				return err
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o, err := f.options(cmd, args[0])
			if err != nil {
				return err
			}
			s := sweep.New(o)
			ctx, stopSignals := handleSignals(s, o.Log)
			code, err := s.Run(ctx)
			stopSignals()
			if err != nil {
				return err
			}
			return &exitOnly{code: code}
		},
	}
	fs := cmd.Flags()
	f.registerScript(fs)
	fs.StringVar(&f.rate, "rate", "", "sweep the arrival rate MIN:MAX (req/s) of a constant- or poisson-arrival-rate scenario")
	fs.StringVar(&f.vus, "vus", "", "sweep the VUs MIN:MAX of a constant-vus scenario")
	fs.StringVar(&f.scenario, "scenario", "", "the scenario to sweep (default: the script's only one)")
	fs.Float64Var(&f.factor, "factor", sweep.DefaultFactor, "load multiplier between the first steps")
	fs.StringVar(&f.precision, "precision", "5%", "stop when the lowest failing load is within this of the highest passing one")
	fs.DurationVar(&f.warmup, "warmup", sweep.DefaultWarmup, "time at the start of each step left out of it")
	fs.DurationVar(&f.duration, "step-duration", sweep.DefaultDuration, "measured time of each step, after its warm-up")
	fs.DurationVar(&f.maxTime, "max-time", sweep.DefaultMaxTime, "cap on the whole sweep: no step starts that would end past it")
	fs.DurationVar(&f.cooldown, "cooldown", sweep.DefaultCooldown, "pause between steps for the server to drain (none with --mock: each step gets a fresh simulator)")
	fs.StringVar(&f.outDir, "out-dir", "", "directory of the steps' result files and sweep.json (default: sweep-YYYYMMDD-HHMMSS)")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "show console.debug and debug logs")
	registerHTTPDebug(fs, &f.httpDebug)
	f.omni.register(fs)
	return cmd
}

// options maps the flags onto the sweep's options.
func (f *sweepFlags) options(cmd *cobra.Command, script string) (sweep.Options, error) {
	fs := cmd.Flags()
	run := testrun.Options{Version: omnikVersion(), HTTPDebug: f.httpDebug, Script: testrun.Script{Path: script},
		Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(), Log: newLogger(cmd.ErrOrStderr(), f.verbose)}
	if err := f.testFlags.apply(&run, cmd); err != nil {
		return sweep.Options{}, err
	}
	mockOn := f.omni.mock
	f.omni.mock = false // a simulator per step, below
	var err error
	if run.Omni, err = f.omni.options(fs); err != nil {
		return sweep.Options{}, err
	}
	o := sweep.Options{Run: run, Dir: f.outDir, Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(), Log: run.Log}
	if mockOn {
		o.NewMock = f.omni.mockFlags.server
		if _, err := o.NewMock(); err != nil { // a bad --mock-config fails now
			return o, engine.Invalid(err)
		}
	}
	if o.Dir == "" {
		o.Dir = "sweep-" + time.Now().Format("20060102-150405")
	}
	apply, err := f.spec(fs)
	o.Flags = apply
	return o, err
}

// spec is the flags' part of the Spec: the ones set, over the script's options.sweep.
func (f *sweepFlags) spec(fs *pflag.FlagSet) (func(*sweep.Spec), error) {
	var sets []func(*sweep.Spec)
	knob := func(k sweep.Knob, flag, val string) error {
		lo, hi, err := sweep.ParseRange(val)
		if err != nil {
			return &engine.OptionsError{Msg: fmt.Sprintf("--%s %v", flag, err)}
		}
		sets = append(sets, func(s *sweep.Spec) { s.Knob, s.Min, s.Max = k, lo, hi })
		return nil
	}
	switch {
	case f.rate != "" && f.vus != "":
		return nil, &engine.OptionsError{Msg: "--rate and --vus: a sweep varies one"}
	case f.rate != "":
		if err := knob(sweep.Rate, "rate", f.rate); err != nil {
			return nil, err
		}
	case f.vus != "":
		if err := knob(sweep.VUs, "vus", f.vus); err != nil {
			return nil, err
		}
	}
	if fs.Changed("precision") {
		p, err := sweep.ParsePrecision(f.precision)
		if err != nil {
			return nil, &engine.OptionsError{Msg: "--precision " + err.Error()}
		}
		sets = append(sets, func(s *sweep.Spec) { s.Precision = p })
	}
	if fs.Changed("scenario") {
		sets = append(sets, func(s *sweep.Spec) { s.Scenario = f.scenario })
	}
	if fs.Changed("factor") {
		sets = append(sets, func(s *sweep.Spec) { s.Factor = f.factor })
	}
	for flag, set := range map[string]func(*sweep.Spec){
		"warmup":        func(s *sweep.Spec) { s.Warmup = f.warmup },
		"step-duration": func(s *sweep.Spec) { s.Duration = f.duration },
		"max-time":      func(s *sweep.Spec) { s.MaxTime = f.maxTime },
		"cooldown":      func(s *sweep.Spec) { s.Cooldown = f.cooldown },
	} {
		if fs.Changed(flag) {
			sets = append(sets, set)
		}
	}
	return func(s *sweep.Spec) {
		for _, set := range sets {
			set(s)
		}
	}, nil
}
