package testrun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/internal/cputime"
	"github.com/omnik-dev/omnik/js"
	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/modules/omni/record"
	"github.com/omnik-dev/omnik/modules/omni/report"
	"github.com/omnik-dev/omnik/promwrite"
	"github.com/omnik-dev/omnik/servermetrics"
)

// drainTimeout bounds the wait, after the run, for calls whose reader is still going: the
// run cancelled them, so they end at once unless a server stalls a close.
const drainTimeout = 5 * time.Second

// Stop stops the run gracefully (the first Ctrl-C): running iterations get their
// gracefulStop, then teardown and the summary. It may come before the run started.
func (t *Test) Stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stopping = true
	if t.run != nil {
		t.run.Stop()
	}
}

// Run runs the test once and returns its exit code. Cancelling ctx is a hard stop:
// iterations are interrupted at once and teardown is skipped; the summary still prints
// and every file is still written. An error means the run did not start (its outputs
// could not be opened).
func (t *Test) Run(ctx context.Context) (engine.ExitCode, error) {
	t.mu.Lock()
	ran := t.ran
	t.ran = true
	t.mu.Unlock()
	if ran {
		return 0, errors.New("testrun: a Test runs once; Load another")
	}
	o := &t.opts
	plan, err := t.Plan()
	if err != nil {
		return 0, err
	}
	specs, reports, err := splitHTMLOuts(o.Outs)
	if err == nil {
		err = reports.check()
	}
	if err != nil {
		return 0, engine.Invalid(err)
	}
	outs, err := openOutputs(specs, o.Log)
	if err != nil {
		return 0, err
	}
	sec := o.Omni.Section
	sec.Started = t.origin
	for _, sc := range plan.Scenarios {
		sec.Scenarios = append(sec.Scenarios, sc.Name)
	}
	v, err := newViews(t.registry, t.judged(), o.TrendBudget, sec, o.Log, outs...)
	if err != nil {
		_ = outs.Stop()
		return 0, engine.Invalid(err)
	}
	droppedSink, lagSink, err := t.outcomeSinks(v.pipeline)
	if err != nil {
		_ = outs.Stop()
		return 0, engine.Invalid(err)
	}
	requests, measured := newRequestCounts(), newRequestCounts()
	views := append(append(v.subscribers(), measured, record.SubscriberFunc(func(r *record.Record) {
		outs.AddEntry(metrics.Entry{Type: "Record", Data: r})
	})), o.Subscribers...)
	if reports != nil {
		views = append(views, reports.collector)
	}
	// The progress lines count every request; everything else sees the measured window.
	t.stream.Subscribe(requests, t.window.records(views...))
	scraper, first := t.serverScraper(ctx)
	hdr := t.header(sec, plan)
	var feed func(servermetrics.Scrape)
	if scraper != nil {
		hdr.ServerMetrics, v.serverURL = scraper.URL(), scraper.URL()
		feed = serverFeed(v, outs)
	}
	outs.AddEntry(metrics.Entry{Type: "Run", Data: hdr})
	if scraper != nil {
		feed(first)
		scraper.Start(t.phase, feed)
	}
	v.pipeline.Start()

	run, err := t.newEngine(v, requests)
	if err != nil {
		if scraper != nil {
			scraper.Stop()
			scraper.Close()
		}
		v.pipeline.Stop()
		_ = outs.Stop()
		return 0, err
	}
	res := run.Run(ctx)

	// Records of calls the end of the run cut off still count, once their readers return.
	drain, cancel := context.WithTimeout(context.Background(), drainTimeout)
	t.module.Drain(drain)
	cancel()
	t.stream.Close()
	if scraper != nil {
		scraper.Stop()
		// The page after the last response closes the counters' window; a hard stop
		// (ctx cancelled) does not wait for it, the last page read closes it then.
		if ctx.Err() == nil {
			feed(scraper.Read(context.Background(), servermetrics.After))
		}
		scraper.Close()
	}
	end := runEnd{Schema: runSchemaWritten, Duration: t.window.measured(res.Duration), Interrupted: res.Interrupted, StopReason: res.AbortReason, ScenarioStarts: map[string]time.Duration{}, ScheduleEnds: map[string]time.Duration{},
		Warmup: t.window.warmup, WarmupRecords: t.window.skipped.Load()}
	from, _ := t.window.offset()
	if end.Warmup > 0 {
		end.MeasuredFrom = from
		v.section.MeasuredFrom(from)
	}
	for _, sc := range res.Scenarios {
		if !sc.Started.IsZero() {
			// A warm-up moves where the benchmark durations begin to where it ended.
			end.ScenarioStarts[sc.Name] = max(sc.Started.Sub(t.origin), from)
			v.section.ScenarioStarted(sc.Name, end.ScenarioStarts[sc.Name])
		}
		if !sc.ScheduleEnded.IsZero() {
			end.ScheduleEnds[sc.Name] = sc.ScheduleEnded.Sub(t.origin)
			v.section.ScenarioScheduleEnded(sc.Name, end.ScheduleEnds[sc.Name])
		}
	}
	summary, ev := v.summarize(t.judged(), end.Duration, summaryOptions{t.trendStats, t.timeUnit(), noColor(t.options, o.Stdout)})
	summary.Run = hdr.about()
	end.Client = readClient(v.final, t.cores(), res.DroppedNoVU, t.opts.Omni.Mock != nil)
	if end.Client.Saturated {
		summary.Warnings = append(summary.Warnings, end.Client.Warning)
	}
	reports.write(summary, t.origin, o.Log)
	end.LateSamples, end.LateRecords = v.pipeline.Late(), t.stream.Late()
	warnLate(o.Log, end)
	outs.AddEntry(metrics.Entry{Type: "End", Data: end})
	if err := outs.Stop(); err != nil {
		o.Log.Error("output failed", "err", err)
	}
	summaryErr := t.emitSummary(summary)
	if o.AfterSummary != nil {
		if err := o.AfterSummary(v.section, t.module); err != nil {
			o.Log.Error(err.Error())
		}
	}
	if res.Err != nil {
		o.Log.Error(js.Exception(res.Err))
	}
	if res.AbortReason != "" {
		o.Log.Error("run aborted: " + res.AbortReason)
	}
	if res.Failed {
		o.Log.Error("test failed: " + res.FailReason)
	}
	if failed := ev.Failed(); len(failed) > 0 && !o.NoVerdictLine {
		// On stderr whatever the summary did: with --no-summary or a handleSummary that
		// prints nothing, this line is the only word on why the run exits 99.
		o.Log.Error(crossed(failed))
	}
	code := engine.ExitCodeFor(res, ev.Passed(), summaryErr)
	t.outcome = newOutcome(code, res, ev, end, measured, t.window, v.final, droppedSink, lagSink)
	return code, nil
}

// newEngine builds the engine run and connects the script's VUs to it.
func (t *Test) newEngine(v *views, requests *requestCounts) (*engine.Run, error) {
	p := v.pipeline
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
	opts := []engine.Option{
		engine.WithSegment(t.opts.Segment),
		engine.WithStartAt(t.opts.StartAt),
		engine.WithMetrics(t.window.samples(p), r.Builtin()),
		engine.WithLogger(t.opts.Log),
		engine.OnTick(time.Second, thresholdTicker(t.judged(), v, t.window)),
		engine.OnScenarios(t.window.start, t.window.end),
	}
	if t.opts.clientSampler != nil {
		opts = append(opts, engine.WithClientSampler(t.opts.clientSampler))
	}
	if !t.opts.Quiet {
		opts = append(opts, engine.WithProgress(engine.NewProgress(t.opts.Stderr, engine.ProgressNoColor(noColor(t.options, nil)),
			engine.ProgressRequests(requests.of))))
	}
	run, err := engine.New(script, t.options, opts...)
	if err != nil {
		return nil, err
	}
	frozen, _ := json.Marshal(t.options)
	r.Configure(js.WithCollector(t.window.samples(p)), js.WithController(run), js.WithTags(t.options.Tags), js.WithConsolidatedOptions(frozen))
	t.mu.Lock()
	t.run = run
	if t.stopping {
		run.Stop()
	}
	t.mu.Unlock()
	return run, nil
}

// thresholdTicker evaluates thresholds during the run and asks for an abort when an
// abortOnFail threshold fails past its delay (metrics.Evaluation.Abort).
func thresholdTicker(ths []*metrics.Threshold, v *views, w *window) engine.TickFunc {
	names := make([]string, len(ths))
	for i, th := range ths {
		names[i] = th.SinkName()
	}
	return func(elapsed time.Duration) (bool, string) {
		// The warm-up is not judged: its samples are in no sink.
		if len(ths) == 0 || elapsed < w.warmup {
			return false, ""
		}
		snap := *v.pipeline.SnapshotOf(names...)
		snap.Elapsed = w.measured(elapsed)
		if ab := metrics.EvaluateThresholds(ths, v.judging(ths, &snap)).Abort; ab != nil {
			return true, fmt.Sprintf("threshold %s failed", ab.Threshold)
		}
		return false, ""
	}
}

// judged are the thresholds this run judges: none with NoThresholds, where the result
// file still carries them for omnik merge to judge on every piece's data.
func (t *Test) judged() []*metrics.Threshold {
	if t.opts.NoThresholds {
		return nil
	}
	return t.thresholds
}

// optionsDigest is the sha256 of the consolidated options (tags left out) and the
// --threshold expressions.
func (t *Test) optionsDigest() string {
	o := t.options
	o.Tags = nil
	b, _ := json.Marshal(struct {
		Options    engine.Options
		Thresholds []string
	}{o, t.opts.Thresholds})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// header is the Run entry of the result files.
func (t *Test) header(sec report.SectionOptions, plan *engine.ExecutionPlan) runHeader {
	name := t.opts.Script.Path
	if t.opts.Script.Source != nil {
		name = t.opts.Script.Name
	}
	stats := make([]string, len(t.trendStats))
	for i, st := range t.trendStats {
		stats[i] = st.String()
	}
	seg := t.opts.Segment
	return runHeader{Schema: runSchemaWritten, Origin: t.origin, Script: name, Scenarios: sec.Scenarios,
		Metrics: declareMetrics(t.registry), Tags: t.options.Tags, Thresholds: t.options.Thresholds,
		CLIThresholds: t.opts.Thresholds, TrendStats: stats, TimeUnit: t.timeUnit(), TrendBudget: t.opts.TrendBudget,
		Section: newSectionHeader(sec),
		Piece: &pieceHeader{Segment: seg.String(), Slots: seg.Slots(), RunID: t.opts.RunID, StartAt: t.opts.StartAt,
			ScriptSHA256: t.runner.Digest(), OptionsSHA256: t.optionsDigest(), RecordSchema: record.Schema},
		Env: t.env(plan)}
}

// cores are the cores the client's CPU share is of.
func (t *Test) cores() int {
	if t.opts.clientCores > 0 {
		return t.opts.clientCores
	}
	return cputime.Cores()
}

func (t *Test) timeUnit() string {
	if t.options.SummaryTimeUnit != nil {
		return *t.options.SummaryTimeUnit
	}
	return "ms"
}

// warnLate says how much reached the run after it stopped, which no view has.
func warnLate(log interface{ Warn(string, ...any) }, end runEnd) {
	if end.LateSamples > 0 || end.LateRecords > 0 {
		log.Warn(fmt.Sprintf("%d samples and %d request records arrived after the run had stopped; they are not in the summary or the files",
			end.LateSamples, end.LateRecords))
	}
}

func openOutputs(specs []string, log *slog.Logger) (metrics.Outputs, error) {
	var outs metrics.Outputs
	for _, s := range specs {
		if strings.HasPrefix(s, "csv=") {
			// Said once, up front, so nobody looks in the CSV for what only JSON holds.
			log.Info("--out " + s + " holds metric points, one row per sample; request records (what omnik report reads) are written only by --out json=FILE")
		}
		var o metrics.Output
		var err error
		if promwrite.IsSpec(s) {
			o, err = promwrite.New(s, promwrite.WithLogger(log))
		} else {
			o, err = metrics.NewOutput(s)
		}
		if err != nil {
			_ = outs.Stop()
			return nil, engine.Invalid(err)
		}
		outs = append(outs, o)
	}
	if err := outs.Start(); err != nil {
		return nil, engine.Invalid(err)
	}
	return outs, nil
}

// noColor reports colours off: NO_COLOR, options.noColor, or w (when given) not a
// terminal.
func noColor(o engine.Options, w any) bool {
	_, env := os.LookupEnv("NO_COLOR")
	return env || (o.NoColor != nil && *o.NoColor) || (w != nil && !isTerminal(w))
}
