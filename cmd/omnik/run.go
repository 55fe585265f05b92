package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/testrun"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// runFlags are `omnik run`'s flags.
type runFlags struct {
	testFlags
	outs          []string
	summaryExport string
	noSummary     bool
	quiet         bool
	verbose       bool
	httpDebug     string
	runID         string
	startAt       string
	noThresholds  bool
	omni          omniFlags
}

func newRunCommand() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [flags] SCRIPT",
		Short: "Run a scenario script (.js, .mjs, .ts)",
		Long: `Run a k6-style scenario script: VUs run its default function (or each scenario's
exec) under the configured executors, every omni call is timed in Go, thresholds gate
the exit code and a summary is printed at the end. Exit codes: docs/cli.md.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if err := f.omni.servers.strayURL(args); err != nil {
				return err
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o, err := f.options(cmd)
			if err != nil {
				return err
			}
			o.Script = testrun.Script{Path: args[0]}
			return runTest(o)
		},
	}
	fs := cmd.Flags()
	f.register(fs)
	fs.StringArrayVarP(&f.outs, "out", "o", nil, "write results: json=FILE[.gz] (NDJSON: records and points, omnik report reads it), csv=FILE, html=FILE (the HTML report, written at the end), or prometheus=URL[,interval=5s,testid=ID,histograms=auto|native|classic,max_series=N,timeout=D] (live, by remote write; docs/prometheus.md) (repeatable)")
	fs.StringVar(&f.summaryExport, "summary-export", "", "write the summary as JSON to FILE")
	fs.BoolVar(&f.noSummary, "no-summary", false, "do not print the end-of-test summary")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "no progress output")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "show console.debug and debug logs")
	registerHTTPDebug(fs, &f.httpDebug)
	fs.StringVar(&f.runID, "run-id", "", "name of the distributed run this piece belongs to, in its result file (default $OMNIK_RUN_ID); omnik merge refuses pieces of different runs")
	fs.BoolVar(&f.noThresholds, "no-thresholds", false, "judge no threshold (a piece of a distributed run: omnik merge judges them on all the data)")
	fs.StringVar(&f.startAt, "start-at", "", "hold the scenarios until this RFC 3339 time, or +DURATION from now (default $OMNIK_START_AT): the pieces of a distributed run share one time zero")
	f.omni.register(fs)
	return cmd
}

// orEnv is the flag's value, or the environment variable's when the flag is unset.
func orEnv(flag, env string) string {
	if flag != "" {
		return flag
	}
	return os.Getenv(env)
}

// parseStartAt reads --start-at: an RFC 3339 time, or +DURATION after now; "" is none.
func parseStartAt(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, ok := strings.CutPrefix(s, "+"); ok {
		dur, err := time.ParseDuration(d)
		if err != nil || dur < 0 {
			return time.Time{}, &engine.OptionsError{Msg: fmt.Sprintf("--start-at %q: want an RFC 3339 time or +DURATION (+90s)", s)}
		}
		return now.Add(dur), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, &engine.OptionsError{Msg: fmt.Sprintf("--start-at %q: want an RFC 3339 time (2026-12-01T12:00:00Z) or +DURATION (+90s)", s)}
	}
	return t, nil
}

// registerHTTPDebug adds --http-debug[=full], which run and bench share.
func registerHTTPDebug(fs *pflag.FlagSet, mode *string) {
	fs.StringVar(mode, "http-debug", "", "print every HTTP request and response to stderr, credentials redacted; --http-debug=full adds the bodies (4 KiB at most each)")
	fs.Lookup("http-debug").NoOptDefVal = "headers"
}

// options maps the flags onto the run's options (the script is the caller's).
func (f *runFlags) options(cmd *cobra.Command) (testrun.Options, error) {
	o := testrun.Options{Version: omnikVersion(), Outs: f.outs, SummaryExport: f.summaryExport, NoSummary: f.noSummary, Quiet: f.quiet, HTTPDebug: f.httpDebug,
		Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(), Log: newLogger(cmd.ErrOrStderr(), f.verbose)}
	if err := f.testFlags.apply(&o, cmd); err != nil {
		return o, err
	}
	o.RunID, o.NoThresholds = orEnv(f.runID, "OMNIK_RUN_ID"), f.noThresholds
	var err error
	if o.StartAt, err = parseStartAt(orEnv(f.startAt, "OMNIK_START_AT"), time.Now()); err != nil {
		return o, err
	}
	o.Omni, err = f.omni.options(cmd.Flags())
	return o, err
}

// runTest loads and runs a test, Ctrl-C stopping it, and returns its exit code.
func runTest(o testrun.Options) error {
	t, err := testrun.Load(o)
	if err != nil {
		return err
	}
	defer t.Close()
	ctx, stopSignals := handleSignals(t, o.Log)
	code, err := t.Run(ctx)
	stopSignals()
	if err != nil {
		return err
	}
	return &exitOnly{code: code}
}

// handleSignals makes the first Ctrl-C a graceful stop of t (a run, a sweep) and the
// second a hard one. The returned func stops listening.
func handleSignals(t interface{ Stop() }, log *slog.Logger) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		n := 0
		for {
			select {
			case <-sigs:
				n++
				if n == 1 {
					log.Warn("stopping: running iterations get their gracefulStop, then teardown and the summary (Ctrl-C again to stop at once)")
					t.Stop()
				} else {
					log.Warn("stopping now")
					cancel()
				}
			case <-done:
				return
			}
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}
