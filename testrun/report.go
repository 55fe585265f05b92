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
	"github.com/omnik-dev/omnik/servermetrics"
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
	// HTML, when set, is where to write the HTML report of the file's run.
	HTML string
	// Subscribers are views of the caller's on the file's records, fed after the
	// summary's own.
	Subscribers []record.Subscriber
	NoColor     bool

	Stdout, Stderr io.Writer
	Log            *slog.Logger
}

// Report prints the end-of-test summary of a result file, as the run that wrote it
// printed it: its records and points feed the same views a live run feeds. The exit code
// is 99 when a threshold fails, else 0; an error (exit 104) means the file could not be
// read as omnik results.
func Report(o ReportOptions) (engine.ExitCode, error) {
	rp := newReporter(o)
	if err := rp.html.check(); err != nil {
		return 0, engine.Invalid(err)
	}
	if err := rp.read(o.Path, nil, 0); err != nil {
		return 0, engine.Invalid(err)
	}
	return rp.finish()
}

func newReporter(o ReportOptions) *reporter {
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	rp := &reporter{opts: o, registry: metrics.NewRegistry(), stream: record.NewStream()}
	if o.HTML != "" {
		rp.html = rp.html.with(o.HTML)
	}
	metrics.RegisterBuiltins(rp.registry)
	omni.RegisterMetrics(rp.registry)
	return rp
}

// read feeds one result file to the views. header, when set, stands for the file's own
// Run header (a merge's, checked beforehand); shift moves its records onto the views'
// timeline. What the file lacked or had skipped is said at once, file by file.
func (rp *reporter) read(path string, header *runHeader, shift time.Duration) error {
	in, closeIn, err := openInput(path)
	if err != nil {
		return err
	}
	defer closeIn()
	rp.piece = &pieceRead{path: path, shift: shift, badFields: map[string]int{}, unknown: map[string]int{}}
	if header != nil {
		rp.header, rp.piece.headerGiven = header, true
	}
	stats, err := metrics.ReadResults(in, rp.registry, rp)
	if err == nil {
		err = rp.ensure()
	}
	if err != nil {
		if rp.views != nil {
			rp.views.pipeline.Stop()
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	rp.piece.warn(rp.opts.Log, stats)
	rp.pieces = append(rp.pieces, rp.piece)
	return nil
}

// finish prints and exports the summary of what was read, and writes its HTML report.
func (rp *reporter) finish() (engine.ExitCode, error) {
	o := rp.opts
	summary, ev := rp.summarize()
	rp.html.write(summary, rp.header.Origin, o.Log)
	exportSummary(summary, o.SummaryExport, o.Log)
	if err := summary.WriteText(o.Stdout); err != nil {
		return 0, err
	}
	return engine.ExitCodeFor(engine.Result{}, ev.Passed(), nil), nil
}

// summarize closes the stream, places the scenarios on the timeline and judges the
// thresholds on the views' final state.
func (rp *reporter) summarize() (*metrics.Summary, metrics.Evaluation) {
	rp.stream.Close()
	if ends := rp.ends(); ends != nil {
		for name, at := range ends.ScenarioStarts {
			rp.views.section.ScenarioStarted(name, at)
		}
		for name, at := range ends.ScheduleEnds {
			rp.views.section.ScenarioScheduleEnded(name, at)
		}
		if ends.Warmup > 0 {
			rp.views.section.MeasuredFrom(ends.MeasuredFrom)
		}
	}
	summary, ev := rp.views.summarize(rp.thresholds, rp.duration(), rp.summary)
	summary.Run = rp.header.about()
	summary.Warnings = rp.clientWarnings()
	return summary, ev
}

// clientWarnings are the pieces' saturation warnings, as their runs printed them; of
// several pieces, each names its file (each piece ran on a client of its own).
func (rp *reporter) clientWarnings() []string {
	var out []string
	for _, p := range rp.pieces {
		if p.end == nil || p.end.Client == nil || !p.end.Client.Saturated {
			continue
		}
		if len(rp.pieces) == 1 && p.end.Client.Warning != "" {
			out = append(out, p.end.Client.Warning) // word for word, whichever omnik wrote it
			continue
		}
		out = append(out, p.end.Client.line(p.path))
	}
	return out
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
	html       *htmlReports

	piece               *pieceRead   // the file being read
	pieces              []*pieceRead // the files read
	serverPiece         string       // the file whose server pages are read
	records             int
	first, last         time.Duration // the records' span, for a file without an End line
	firstSeen, lastSeen time.Time     // the points' span
}

// pieceRead is one result file as read: where its timeline sits on the views', its End
// line and what it skipped.
type pieceRead struct {
	path               string
	shift              time.Duration
	headerGiven        bool // a merge checked the pieces' headers and gave one
	end                *runEnd
	badFields, unknown map[string]int
	server             *servermetrics.Decoder // its pages, when they are the ones read
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
		if rp.piece.headerGiven {
			rp.piece.headerGiven = false // its own, already checked
			return nil
		}
		if rp.header != nil {
			rp.piece.unknown["second Run header"]++
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
	case servermetrics.EntryType:
		if err := rp.ensure(); err != nil {
			return err
		}
		rp.serverPage(data)
		return nil
	case "End":
		var e runEnd
		if err := json.Unmarshal(data, &e); err != nil || !e.inRange() {
			rp.piece.unknown["malformed End"]++
			return nil
		}
		rp.piece.end = &e
		return nil
	}
	rp.piece.unknown[typ]++
	return nil
}

func (rp *reporter) record(data json.RawMessage) error {
	r, err := record.Decode(data)
	var fe *record.FieldError
	switch {
	case errors.As(err, &fe):
		rp.piece.badFields[fe.Field]++
		return nil
	case err != nil:
		return err
	}
	r.Offset += rp.piece.shift
	if rp.records == 0 || r.Offset < rp.first {
		rp.first = r.Offset
	}
	rp.last = max(rp.last, r.Offset+r.End)
	rp.records++
	rp.stream.Publish(r)
	return nil
}

// serverPage folds one of the file's server pages. Every piece of a distributed run
// scrapes the same server, so only the first piece's pages are read: the others'
// increases would count the server's requests again.
func (rp *reporter) serverPage(data json.RawMessage) {
	p := rp.piece
	if p.server == nil {
		if rp.serverPiece != "" && rp.serverPiece != p.path {
			p.unknown["server pages of a second piece (the first piece's are used)"]++
			return
		}
		rp.serverPiece, p.server = p.path, servermetrics.NewDecoder(0)
	}
	sc, err := p.server.Decode(data)
	if err != nil {
		p.unknown["malformed ServerScrape"]++
		return
	}
	sc.At += p.shift
	rp.views.server.Add(sc)
	if rp.views.serverURL == "" {
		if rp.header != nil {
			rp.views.serverURL = rp.header.ServerMetrics
		}
		if rp.views.serverURL == "" {
			rp.views.serverURL = "(not named in the file)"
		}
	}
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
	if rp.thresholds, err = metrics.ParseThresholds(rawThresholds, cli, lookupMetric(rp.registry)); err != nil {
		return err
	}
	rp.summary.TimeUnit = unit
	rp.summary.NoColor = ColorsOff(rp.opts.NoColor, rp.opts.Stdout)
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
	if rp.html != nil {
		rp.stream.Subscribe(rp.html.collector)
	}
	rp.stream.Subscribe(rp.opts.Subscribers...)
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

// ends combines the pieces' End lines on the views' timeline: each scenario starts at
// its earliest start and its schedule ends at the latest end. nil when a file has none.
func (rp *reporter) ends() *runEnd {
	out := &runEnd{ScenarioStarts: map[string]time.Duration{}, ScheduleEnds: map[string]time.Duration{}}
	for _, p := range rp.pieces {
		if p.end == nil {
			return nil
		}
		for name, at := range p.end.ScenarioStarts {
			if cur, ok := out.ScenarioStarts[name]; !ok || p.shift+at < cur {
				out.ScenarioStarts[name] = p.shift + at
			}
		}
		for name, at := range p.end.ScheduleEnds {
			out.ScheduleEnds[name] = max(out.ScheduleEnds[name], p.shift+at)
		}
		if p.end.Warmup > 0 {
			// The earliest, as for the scenarios' starts: a later piece's window would cut
			// into an earlier one's.
			if out.Warmup == 0 || p.shift+p.end.MeasuredFrom < out.MeasuredFrom {
				out.MeasuredFrom = p.shift + p.end.MeasuredFrom
			}
			out.Warmup = max(out.Warmup, p.end.Warmup)
		}
	}
	return out
}

// duration is the run's: from the End lines, the earliest start of a piece's scenarios
// to the latest end (one file: its Duration exactly); without them (a killed run) the
// first to the last request or point.
func (rp *reporter) duration() time.Duration {
	runs, ok := rp.pieceRuns()
	if !ok {
		return max(rp.last-rp.first, rp.lastSeen.Sub(rp.firstSeen))
	}
	var from, to time.Duration
	for i, r := range runs {
		if i == 0 || r.start < from {
			from = r.start
		}
		to = max(to, r.start+r.length)
	}
	return to - from
}

// pieceRun is when a piece's scenarios started on the views' timeline, and how long they ran.
type pieceRun struct{ start, length time.Duration }

// pieceRuns lists the pieces' runs; ok is false when a file has no End line. Of several
// pieces, one stopped before its scenarios started ran nothing and is left out; a single
// file's run counts from its origin then.
func (rp *reporter) pieceRuns() (runs []pieceRun, ok bool) {
	for _, p := range rp.pieces {
		if p.end == nil {
			return nil, false
		}
		first, started := p.end.firstStart()
		if started || len(rp.pieces) == 1 {
			runs = append(runs, pieceRun{p.shift + first, p.end.Duration})
		}
	}
	return runs, true
}

// maxRunSpan bounds the times of an End line: a run, or a place on its timeline, of a
// year or more (or before its origin) is damage, not a run.
const maxRunSpan = 365 * 24 * time.Hour

// inRange reports whether the End line's times could be a run's: the duration, the
// scenario starts and the schedule ends within [0, maxRunSpan).
func (e *runEnd) inRange() bool {
	ok := func(d time.Duration) bool { return d >= 0 && d < maxRunSpan }
	for _, m := range []map[string]time.Duration{e.ScenarioStarts, e.ScheduleEnds} {
		for _, at := range m {
			if !ok(at) {
				return false
			}
		}
	}
	return ok(e.Duration)
}

// firstStart is when the piece's first scenario started, on its own timeline; ok is
// false when none did.
func (e *runEnd) firstStart() (first time.Duration, ok bool) {
	for _, at := range e.ScenarioStarts {
		if !ok || at < first {
			first, ok = at, true
		}
	}
	return first, ok
}

// warn says, one line each, what the file lacked or what was skipped: nothing is
// dropped without a word.
func (p *pieceRead) warn(log *slog.Logger, stats metrics.ReadStats) {
	path := p.path
	if stats.Bad > 0 {
		log.Warn(fmt.Sprintf("%s: skipped %d lines that are not result lines (first: %s)", path, stats.Bad, stats.FirstBad))
	}
	if len(p.badFields) > 0 {
		n, parts := 0, []string{}
		for _, f := range slices.Sorted(maps.Keys(p.badFields)) {
			n += p.badFields[f]
			parts = append(parts, fmt.Sprintf("%s (%d)", f, p.badFields[f]))
		}
		log.Warn(fmt.Sprintf("%s: skipped %d records with a missing or malformed field: %s", path, n, strings.Join(parts, ", ")))
	}
	if len(p.unknown) > 0 {
		parts := []string{}
		for _, k := range slices.Sorted(maps.Keys(p.unknown)) {
			parts = append(parts, fmt.Sprintf("%s (%d)", k, p.unknown[k]))
		}
		log.Warn(fmt.Sprintf("%s: skipped lines this omnik does not read: %s", path, strings.Join(parts, ", ")))
	}
	switch {
	case stats.Truncated:
		log.Warn(fmt.Sprintf("%s: the file ends in the middle of a line (the run was killed?); everything before it is reported", path))
	case p.end == nil:
		log.Warn(fmt.Sprintf("%s: no End line (the run was killed?); durations count from the first request or point to the last", path))
	}
	if p.end != nil {
		warnLate(log, *p.end)
	}
}
