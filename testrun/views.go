package testrun

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/modules/omni"
	"github.com/omnik-dev/omnik/modules/omni/record"
	"github.com/omnik-dev/omnik/modules/omni/report"
	"github.com/omnik-dev/omnik/servermetrics"
)

// views are the subscribers of a run's record stream that the summary reads, built the
// same way live and from a result file: the omni metrics' samples folded by the
// pipeline (thresholds, METRICS), and the Serving/Stage section.
type views struct {
	pipeline *metrics.Pipeline
	section  *report.Section
	samples  record.Subscriber
	// server is the server's own view, from its scraped pages; serverURL names the page,
	// "" when none was read (no Server metrics block).
	server    *servermetrics.Window
	serverURL string
	// final is the pipeline's last snapshot, once summarize took it.
	final *metrics.Snapshot
}

func newViews(reg *metrics.Registry, ths []*metrics.Threshold, budget int, sec report.SectionOptions, log *slog.Logger, outs ...metrics.Output) (*views, error) {
	p := metrics.NewPipeline(metrics.WithTrendBudget(budget), metrics.WithOutputs(outs...),
		metrics.WithLogger(func(format string, args ...any) { log.Warn(fmt.Sprintf(format, args...)) }))
	for _, th := range ths {
		// A server family's selection is the server window's to follow, not the pipeline's.
		if th.Selector.Len() > 0 && th.Metric.Kind != metrics.External {
			if err := p.AddSubMetric(th.Metric, th.Selector); err != nil {
				return nil, err
			}
		}
	}
	server := servermetrics.NewWindow(0)
	server.WatchThresholds(ths)
	return &views{pipeline: p, section: report.NewSection(sec), server: server,
		samples: omni.RegisterMetrics(reg).View(metrics.CollectorFunc(p.CollectDerived))}, nil
}

// subscribers are the views in the order every record reaches them.
func (v *views) subscribers() []record.Subscriber {
	return []record.Subscriber{v.samples, v.section}
}

// summaryOptions are what shapes the k6-style summary besides the data.
type summaryOptions struct {
	TrendStats []metrics.Stat
	TimeUnit   string
	NoColor    bool
}

// summarize stops the views and judges the thresholds on their final state, over a run
// that lasted d: the snapshot's Elapsed is d, so counter rates are the same for the
// thresholds and the summary.
func (v *views) summarize(ths []*metrics.Threshold, d time.Duration, so summaryOptions) (*metrics.Summary, metrics.Evaluation) {
	snap := *v.pipeline.Stop()
	snap.Elapsed = d
	v.final = &snap
	ev := metrics.EvaluateThresholds(ths, v.judging(ths, &snap))
	sections := []metrics.Section{v.section}
	if v.serverURL != "" {
		sections = append(sections, &servermetrics.Section{Report: v.server.Summarise(v.serverURL, snap.Sink)})
	}
	s := metrics.NewSummary(&snap, ev, metrics.SummaryOptions{TrendStats: so.TrendStats, TimeUnit: so.TimeUnit, NoColor: so.NoColor}, sections...)
	return s, ev
}

// judging is snap with the sinks of the thresholds on server families, as the server's
// window stands now.
func (v *views) judging(ths []*metrics.Threshold, snap *metrics.Snapshot) *metrics.Snapshot {
	return snap.WithSinks(v.server.Sinks(ths))
}

// runSchema versions the Run and End entries of a result file.
const runSchema = "omnik.run/v1"

// runSchemaWritten is the minor version written: v1.1 adds piece, v1.2 env, v1.3
// server_metrics, v1.4 the End line's warmup, v1.5 its client.
const runSchemaWritten = runSchema + ".5"

// runHeader is the first line of a result file: what `omnik report` needs besides the
// data to print the summary the run printed.
type runHeader struct {
	Schema string `json:"schema"`
	// Origin is the run's time zero; records' offset_ms and the End entry count from it.
	Origin    time.Time         `json:"origin"`
	Script    string            `json:"script,omitempty"`
	Scenarios []string          `json:"scenarios"`
	Metrics   []metricDecl      `json:"metrics"`
	Tags      map[string]string `json:"tags,omitempty"`
	// Thresholds are the run's options.thresholds; CLIThresholds its --threshold.
	Thresholds    json.RawMessage `json:"thresholds,omitempty"`
	CLIThresholds []string        `json:"cli_thresholds,omitempty"`
	TrendStats    []string        `json:"summary_trend_stats"`
	TimeUnit      string          `json:"summary_time_unit"`
	TrendBudget   int             `json:"trend_budget"`
	Section       sectionHeader   `json:"section"`
	// The piece's place in a distributed run (v1.1): omnik merge checks that the pieces
	// come from one script and run and cover the test once.
	Piece *pieceHeader `json:"piece,omitempty"`
	// Env says where and how the run ran (v1.2).
	Env *RunEnv `json:"env,omitempty"`
	// ServerMetrics is the server page scraped during the run, redacted (v1.3); its
	// pages are the file's ServerScrape lines.
	ServerMetrics string `json:"server_metrics,omitempty"`
}

// pieceHeader says which piece of which run a result file holds.
type pieceHeader struct {
	Segment      string    `json:"segment"` // from:to
	Slots        int64     `json:"slots"`   // the segment's D (engine.Segment.Slots)
	RunID        string    `json:"run_id,omitempty"`
	StartAt      time.Time `json:"start_at,omitzero"`
	ScriptSHA256 string    `json:"script_sha256"`
	// OptionsSHA256 hashes the consolidated options but their tags (a pod may tag its
	// zone), thresholds and --threshold included: pieces of one test share it.
	OptionsSHA256 string `json:"options_sha256"`
	RecordSchema  string `json:"record_schema"`
}

// metricDecl declares a registered metric, so thresholds on metrics without samples
// parse offline as they did live.
type metricDecl struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Contains string `json:"contains"`
}

// sectionHeader is report.SectionOptions as a file keeps it.
type sectionHeader struct {
	Metrics        []string     `json:"percentile_metrics"`
	Percentiles    []float64    `json:"metric_percentiles"`
	NoStages       bool         `json:"no_stage_summary"`
	Goodput        []report.SLO `json:"goodput,omitempty"`
	MaxConcurrency int          `json:"max_concurrency,omitempty"`
	RequestRate    float64      `json:"request_rate,omitempty"` // 0: unbounded
}

func newSectionHeader(o report.SectionOptions) sectionHeader {
	rate := o.RequestRate
	if math.IsInf(rate, 0) || math.IsNaN(rate) {
		rate = 0
	}
	return sectionHeader{Metrics: o.Metrics, Percentiles: o.Percentiles, NoStages: o.NoStages, Goodput: o.Goodput,
		MaxConcurrency: o.MaxConcurrency, RequestRate: rate}
}

func (h sectionHeader) options(scenarios []string, budget int, started time.Time) report.SectionOptions {
	return report.SectionOptions{Metrics: h.Metrics, Percentiles: h.Percentiles, NoStages: h.NoStages, Goodput: h.Goodput,
		MaxConcurrency: h.MaxConcurrency, RequestRate: h.RequestRate, Scenarios: scenarios, TrendBudget: budget, Started: started}
}

func declareMetrics(reg *metrics.Registry) []metricDecl {
	all := reg.All()
	out := make([]metricDecl, len(all))
	for i, m := range all {
		out[i] = metricDecl{m.Name, m.Kind.String(), m.Contains.String()}
	}
	return out
}

// runEnd is the last line of a result file, written once the run is over. Its times are
// integer nanoseconds, so a re-report divides by exactly what the run divided by.
type runEnd struct {
	Schema string `json:"schema"`
	// Duration is the time the scenarios ran: counter rates divide by it.
	Duration time.Duration `json:"duration_ns"`
	// ScenarioStarts place each scenario's start on the run's timeline, where its
	// Serving block's benchmark duration begins.
	ScenarioStarts map[string]time.Duration `json:"scenario_starts_ns"`
	// ScheduleEnds place where arrival-rate scenarios' schedules ended: their benchmark
	// durations last at least until then.
	ScheduleEnds map[string]time.Duration `json:"schedule_ends_ns,omitempty"`
	// Interrupted is set when the run ended before its plan did (a signal, an abort):
	// as a piece of a distributed run, its segment is incomplete.
	Interrupted bool   `json:"interrupted,omitempty"`
	StopReason  string `json:"stop_reason,omitempty"`
	// LateSamples and LateRecords arrived after the run stopped: no view has them.
	LateSamples int64 `json:"late_samples"`
	LateRecords int64 `json:"late_records"`
	// Warmup is how long after the scenarios began the measured window began, and
	// MeasuredFrom where, on the run's timeline (v1.4): Duration and ScenarioStarts
	// describe that window, and the file holds only the records and points that ended in
	// it; WarmupRecords are the requests left out before it.
	Warmup        time.Duration `json:"warmup_ns,omitempty"`
	MeasuredFrom  time.Duration `json:"measured_from_ns,omitempty"`
	WarmupRecords int64         `json:"warmup_records,omitempty"`
	// Client is the client's own load over the measured window and whether it was its
	// own limit (v1.5): omnik report prints its warning as the run did.
	Client *clientVerdict `json:"client,omitempty"`
}
