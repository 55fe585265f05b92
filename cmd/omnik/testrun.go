package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/js"
	"github.com/omnik-dev/omnik/metrics"
	"github.com/spf13/cobra"
)

// runTest is `omnik run`: load, consolidate, run, summarise, decide the exit code. Once
// the run has started, every path still stops the outputs and prints the summary.
func runTest(cmd *cobra.Command, path string, f *runFlags) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	log := newLogger(stderr, f.verbose)
	registry := metrics.NewRegistry()
	omni, err := f.omni.setup(registry, log, stderr)
	if err != nil {
		return err
	}
	defer omni.close()
	if f.beforeLoad != nil {
		if err := f.beforeLoad(omni); err != nil {
			return invalid(err)
		}
	}
	t, err := loadTest(path, &f.testFlags, cmd.Flags(), log, append([]js.Option{js.WithRegistry(registry)}, omni.jsOptions...)...)
	if err != nil {
		return err
	}
	if err := omni.configure(t.opts); err != nil {
		return err
	}
	ths, err := parseThresholds(t, f.thresholds)
	if err != nil {
		return err
	}
	if f.summaryExport != "" {
		// Fail now, not after an hour of load, when the file cannot be written.
		if err := checkWritable(f.summaryExport); err != nil {
			return invalid(fmt.Errorf("--summary-export: %w", err))
		}
	}
	outs, err := openOutputs(f.outs)
	if err != nil {
		return err
	}
	omni.recordsTo(outs)
	pipeline := metrics.NewPipeline(metrics.WithOutputs(outs...),
		metrics.WithLogger(func(format string, args ...any) { log.Warn(fmt.Sprintf(format, args...)) }))
	for _, th := range ths {
		if th.Selector.Len() > 0 {
			if err := pipeline.AddSubMetric(th.Metric, th.Selector); err != nil {
				return invalid(err)
			}
		}
	}
	pipeline.Start()

	run, err := newEngineRun(t, f, pipeline, ths, log, stderr)
	if err != nil {
		pipeline.Stop()
		_ = outs.Stop()
		return err
	}
	ctx, stopSignals := handleSignals(run, log)
	res := run.Run(ctx)
	interrupted := stopSignals()

	snap := pipeline.Stop()
	if err := outs.Stop(); err != nil {
		log.Error("output failed", "err", err)
	}
	ev := metrics.EvaluateThresholds(ths, snap)
	summary := buildSummary(t, snap, ev, res.Duration, omni.sections(), stdout)
	summaryErr := emitSummary(t.runner, summary, f, stdout, stderr, log)
	if f.afterSummary != nil {
		if err := f.afterSummary(omni); err != nil {
			log.Error(err.Error())
		}
	}
	if res.Err != nil {
		log.Error(js.Exception(res.Err))
	}
	if res.AbortReason != "" {
		log.Error("run aborted: " + res.AbortReason)
	}
	if res.Failed {
		log.Error("test failed: " + res.FailReason)
	}
	return &exitOnly{code: exitCode(res, ev, interrupted, summaryErr)}
}

func newEngineRun(t *loadedTest, f *runFlags, pipeline *metrics.Pipeline, ths []*metrics.Threshold, log *slog.Logger, stderr io.Writer) (*engine.Run, error) {
	r := t.runner
	script := engine.Script{
		NewVU: func(ctx context.Context, id uint64) (engine.VU, error) { return r.NewVU(ctx, id) },
	}
	if r.HasExport("setup") {
		script.Setup = func(ctx context.Context) (js.SetupData, error) { return r.Setup(ctx, 0) }
	}
	if r.HasExport("teardown") {
		script.Teardown = func(ctx context.Context, data js.SetupData) error { return r.Teardown(ctx, data, 0) }
	}
	seg, err := f.executionSegment()
	if err != nil {
		return nil, err
	}
	opts := []engine.Option{
		engine.WithSegment(seg),
		engine.WithMetrics(pipeline, r.Builtin()),
		engine.WithLogger(log),
		engine.OnTick(time.Second, thresholdTicker(ths, pipeline)),
	}
	if !f.quiet {
		opts = append(opts, engine.WithProgress(engine.NewProgress(stderr, engine.ProgressNoColor(noColor(t.opts)))))
	}
	run, err := engine.New(script, t.opts, opts...)
	if err != nil {
		return nil, err
	}
	frozen, _ := json.Marshal(t.opts)
	r.Configure(js.WithCollector(pipeline), js.WithController(run), js.WithTags(t.opts.Tags),
		js.WithConsolidatedOptions(frozen))
	return run, nil
}

// thresholdTicker evaluates thresholds during the run and asks for an abort when an
// abortOnFail threshold fails past its delay.
func thresholdTicker(ths []*metrics.Threshold, p *metrics.Pipeline) engine.TickFunc {
	names := make([]string, len(ths))
	for i, th := range ths {
		names[i] = th.SinkName()
	}
	return func(elapsed time.Duration) (bool, string) {
		if len(ths) == 0 {
			return false, ""
		}
		ev := metrics.EvaluateThresholds(ths, p.SnapshotOf(names...))
		for _, r := range ev.Failed() {
			if r.Threshold.AbortOnFail && elapsed >= r.Threshold.DelayAbortEval {
				return true, fmt.Sprintf("threshold %s failed", r.Threshold)
			}
		}
		return false, ""
	}
}

// handleSignals makes the first Ctrl-C a graceful stop and the second a hard one. The
// returned func stops listening and reports whether a signal arrived.
func handleSignals(run *engine.Run, log *slog.Logger) (context.Context, func() bool) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	got := make(chan bool, 1)
	done := make(chan struct{})
	go func() {
		n := 0
		for {
			select {
			case <-sigs:
				n++
				if n == 1 {
					log.Warn("stopping: running iterations get their gracefulStop, then teardown and the summary (Ctrl-C again to stop at once)")
					run.Stop()
				} else {
					log.Warn("stopping now")
					cancel()
				}
			case <-done:
				got <- n > 0
				return
			}
		}
	}()
	return ctx, func() bool {
		signal.Stop(sigs)
		close(done)
		cancel()
		return <-got
	}
}

// exitCode applies the documented precedence: exceptions and aborts first, then a signal,
// then failed thresholds, then test.fail(), then a failing handleSummary.
func exitCode(res engine.Result, ev metrics.Evaluation, interrupted bool, summaryErr error) engine.ExitCode {
	switch {
	case res.Err != nil:
		return engine.ExitCodeOf(res.Err)
	case res.ExitCode == engine.ExitAborted || res.ExitCode == engine.ExitThresholdsFailed:
		return res.ExitCode
	case interrupted:
		return engine.ExitInterrupted
	case !ev.Passed():
		return engine.ExitThresholdsFailed
	case res.Failed:
		return engine.ExitFailed
	case summaryErr != nil:
		return engine.ExitScriptException
	}
	return res.ExitCode
}

func noColor(o engine.Options) bool {
	_, env := os.LookupEnv("NO_COLOR")
	return env || (o.NoColor != nil && *o.NoColor)
}

func openOutputs(specs []string) (metrics.Outputs, error) {
	var outs metrics.Outputs
	for _, s := range specs {
		o, err := metrics.NewOutput(s)
		if err != nil {
			_ = outs.Stop()
			return nil, invalid(err)
		}
		outs = append(outs, o)
	}
	if err := outs.Start(); err != nil {
		return nil, invalid(err)
	}
	return outs, nil
}

// parseThresholds reads options.thresholds and --threshold against the metrics the
// script and the modules know.
func parseThresholds(t *loadedTest, cli []string) ([]*metrics.Threshold, error) {
	ths, err := metrics.ParseThresholds(t.opts.Thresholds, cli, t.runner.Registry().Get)
	if err != nil {
		return nil, invalid(err)
	}
	return ths, nil
}
