package testrun

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/modules/omni"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// ReportOptions are `omnik report`'s: a result file and what to change in its summary.
type ReportOptions struct {
	Path string // the NDJSON result file, gzip-compressed or not; "-" is stdin
	// Script, when set, replaces the file's thresholds and summary options with that
	// script's; Thresholds are judged besides.
	Script     string
	Thresholds []string
	// Metrics, Percentiles and NoStages, when set, replace the file's shape of the
	// Serving/Stage blocks.
	Metrics       []string
	Percentiles   []float64
	NoStages      *bool
	SummaryExport string
	NoColor       bool

	Stdout, Stderr io.Writer
	Log            *slog.Logger
}

// Report prints the end-of-test summary of a result file, as the run that wrote it
// printed it: its records and points feed the same views a live run feeds. The exit code
// is 99 when a threshold fails, else 0; an error (exit 104) means the file could not be
// read as omnik results.
func Report(o ReportOptions) (engine.ExitCode, error) {
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	in, closeIn, err := openInput(o.Path)
	if err != nil {
		return 0, engine.Invalid(err)
	}
	defer closeIn()
	rp := &reporter{opts: o, registry: metrics.NewRegistry(), stream: record.NewStream(),
		badFields: map[string]int{}, unknown: map[string]int{}}
	metrics.RegisterBuiltins(rp.registry)
	omni.RegisterMetrics(rp.registry)
	stats, err := metrics.ReadResults(in, rp.registry, rp)
	if err == nil {
		err = rp.ensure()
	}
	if err != nil {
		if rp.views != nil {
			rp.views.pipeline.Stop()
		}
		return 0, engine.Invalid(fmt.Errorf("%s: %w", o.Path, err))
	}
	rp.warn(stats)
	rp.stream.Close()
	if rp.end != nil {
		for name, at := range rp.end.ScenarioStarts {
			rp.views.section.ScenarioStarted(name, at)
		}
		for name, at := range rp.end.ScheduleEnds {
			rp.views.section.ScenarioScheduleEnded(name, at)
		}
	}
	summary, ev := rp.views.summarize(rp.thresholds, rp.duration(), rp.summary)
	exportSummary(summary, o.SummaryExport, o.Log)
	if err := summary.WriteText(o.Stdout); err != nil {
		return 0, err
	}
	return engine.ExitCodeFor(engine.Result{}, ev.Passed(), nil), nil
}

func openInput(path string) (io.Reader, func(), error) {
	if path == "-" {
		return os.Stdin, func() {}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}

// reporter is the metrics.ResultHandler of Report: the file's first line (its Run
// header) configures the views, then records go through the stream and points to the
// pipeline, as live.
type reporter struct {
	opts       ReportOptions
	registry   *metrics.Registry
	stream     *record.Stream
	header     *runHeader
	views      *views
	thresholds []*metrics.Threshold
	summary    summaryOptions

	end                 *runEnd
	records             int
	badFields, unknown  map[string]int
	first, last         time.Duration // the records' span, for a file without an End line
	firstSeen, lastSeen time.Time     // the points' span
}

func (rp *reporter) Samples(batch []metrics.Sample) {
	if rp.ensure() != nil {
		return
	}
	for _, s := range batch {
		if rp.firstSeen.IsZero() || s.Time.Before(rp.firstSeen) {
			rp.firstSeen = s.Time
		}
		if s.Time.After(rp.lastSeen) {
			rp.lastSeen = s.Time
		}
	}
	rp.views.pipeline.Collect(batch)
}

func (rp *reporter) Entry(typ string, data json.RawMessage) error {
	switch typ {
	case "Run":
		if rp.header != nil {
			rp.unknown["second Run header"]++
			return nil
		}
		var h runHeader
		if err := json.Unmarshal(data, &h); err != nil {
			return fmt.Errorf("its Run header: %w", err)
		}
		if !readableRunSchema(h.Schema) {
			return fmt.Errorf("its Run header is %q; this omnik reads %s", h.Schema, runSchema)
		}
		rp.header = &h
		return rp.ensure()
	case "Record":
		if err := rp.ensure(); err != nil {
			return err
		}
		return rp.record(data)
	case "End":
		var e runEnd
		if err := json.Unmarshal(data, &e); err != nil {
			rp.unknown["malformed End"]++
			return nil
		}
		rp.end = &e
		return nil
	}
	rp.unknown[typ]++
	return nil
}

func (rp *reporter) record(data json.RawMessage) error {
	r, err := record.Decode(data)
	var fe *record.FieldError
	switch {
	case errors.As(err, &fe):
		rp.badFields[fe.Field]++
		return nil
	case err != nil:
		return err
	}
	if rp.records == 0 || r.Offset < rp.first {
		rp.first = r.Offset
	}
	rp.last = max(rp.last, r.Offset+r.End)
	rp.records++
	rp.stream.Publish(r)
	return nil
}

// readableRunSchema accepts runSchema and its minor versions ("omnik.run/v1.2"), which
// only add keys.
func readableRunSchema(s string) bool {
	rest, ok := strings.CutPrefix(s, runSchema)
	return ok && (rest == "" || rest[0] == '.')
}

// ensure builds the views once, from the header (or defaults, for a file without one).
func (rp *reporter) ensure() error {
	if rp.views != nil {
		return nil
	}
	h := rp.header
	if h == nil {
		h = &runHeader{}
	}
	for _, m := range h.Metrics {
		if err := declare(rp.registry, m); err != nil {
			return err
		}
	}
	rawThresholds, stats, unit := h.Thresholds, h.TrendStats, h.TimeUnit
	cli := append(slices.Clone(h.CLIThresholds), rp.opts.Thresholds...)
	if rp.opts.Script != "" {
		t, err := Load(Options{Script: Script{Path: rp.opts.Script}, Log: rp.opts.Log})
		if err != nil {
			return fmt.Errorf("--script: %w", err)
		}
		t.Close()
		rawThresholds, stats, unit, cli = t.options.Thresholds, t.options.SummaryTrendStats, t.timeUnit(), rp.opts.Thresholds
	}
	var err error
	if rp.summary.TrendStats, err = metrics.ParseTrendStats(stats); err != nil {
		return err
	}
	if rp.thresholds, err = metrics.ParseThresholds(rawThresholds, cli, rp.registry.Get); err != nil {
		return err
	}
	rp.summary.TimeUnit = unit
	noColorSet := rp.opts.NoColor
	rp.summary.NoColor = noColor(engine.Options{NoColor: &noColorSet}, rp.opts.Stdout)
	sec := h.Section.options(h.Scenarios, h.TrendBudget, h.Origin)
	if rp.opts.Metrics != nil {
		sec.Metrics = rp.opts.Metrics
	}
	if rp.opts.Percentiles != nil {
		sec.Percentiles = rp.opts.Percentiles
	}
	if rp.opts.NoStages != nil {
		sec.NoStages = *rp.opts.NoStages
	}
	budget := h.TrendBudget
	if budget <= 0 {
		budget = metrics.DefaultTrendBudget
	}
	sec.TrendBudget = budget
	if rp.views, err = newViews(rp.registry, rp.thresholds, budget, sec, rp.opts.Log); err != nil {
		return err
	}
	rp.stream.Subscribe(rp.views.subscribers()...)
	rp.views.pipeline.Start()
	return nil
}

func declare(reg *metrics.Registry, d metricDecl) error {
	kind, contains, err := metrics.ParseKind(d.Type, d.Contains)
	if err == nil {
		_, err = reg.New(d.Name, kind, contains)
	}
	if err != nil {
		return fmt.Errorf("its Run header: %w", err)
	}
	return nil
}

// duration is the run's, from the End line; a file without one (a killed run) spans
// its first to its last request or point.
func (rp *reporter) duration() time.Duration {
	if rp.end != nil {
		return rp.end.Duration
	}
	return max(rp.last-rp.first, rp.lastSeen.Sub(rp.firstSeen))
}

// warn says, one line each, what the file lacked or what was skipped: nothing is
// dropped without a word.
func (rp *reporter) warn(stats metrics.ReadStats) {
	log, path := rp.opts.Log, rp.opts.Path
	if stats.Bad > 0 {
		log.Warn(fmt.Sprintf("%s: skipped %d lines that are not result lines (first: %s)", path, stats.Bad, stats.FirstBad))
	}
	if len(rp.badFields) > 0 {
		n, parts := 0, []string{}
		for _, f := range slices.Sorted(maps.Keys(rp.badFields)) {
			n += rp.badFields[f]
			parts = append(parts, fmt.Sprintf("%s (%d)", f, rp.badFields[f]))
		}
		log.Warn(fmt.Sprintf("%s: skipped %d records with a missing or malformed field: %s", path, n, strings.Join(parts, ", ")))
	}
	if len(rp.unknown) > 0 {
		parts := []string{}
		for _, k := range slices.Sorted(maps.Keys(rp.unknown)) {
			parts = append(parts, fmt.Sprintf("%s (%d)", k, rp.unknown[k]))
		}
		log.Warn(fmt.Sprintf("%s: skipped lines this omnik does not read: %s", path, strings.Join(parts, ", ")))
	}
	switch {
	case stats.Truncated:
		log.Warn(fmt.Sprintf("%s: the file ends in the middle of a line (the run was killed?); everything before it is reported", path))
	case rp.end == nil:
		log.Warn(fmt.Sprintf("%s: no End line (the run was killed?); durations count from the first request or point to the last", path))
	}
	if rp.end != nil {
		warnLate(log, *rp.end)
	}
}
