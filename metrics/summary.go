package metrics

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"time"
)

// SummarySchema versions the JSON form of Summary.
const SummarySchema = "omnik.summary/v1"

// Section is an extra summary block contributed by another package (the omni module's
// Serving/Stage results). Text is printed after the checks; JSON() appears under
// "sections"[Name()].
type Section interface {
	Name() string
	Text(w io.Writer) error
	JSON() any
}

// SummaryOptions are the options that shape the summary.
type SummaryOptions struct {
	TrendStats []Stat `json:"-"`
	// TimeUnit is "s", "ms" (default) or "us" for time values in the text summary.
	TimeUnit string `json:"summaryTimeUnit"`
	NoColor  bool   `json:"noColor"`
}

// Summary is the end-of-run model: the text summary, --summary-export and
// handleSummary(data) are all views of it.
type Summary struct {
	Schema            string                    `json:"schema"`
	TestRunDurationMs float64                   `json:"test_run_duration_ms"`
	Options           SummaryOptions            `json:"options"`
	Thresholds        []ThresholdSummary        `json:"thresholds"`
	Checks            []CheckSummary            `json:"checks"`
	RootGroup         *GroupSummary             `json:"root_group"`
	Metrics           map[string]*MetricSummary `json:"metrics"`
	// Run describes the run summarized (script, load, environment) as its caller knows
	// it, so a summary export alone says whether two runs compare.
	Run      json.RawMessage `json:"run,omitempty"`
	Sections []Section       `json:"-"`
	// Warnings are one line each about what makes the numbers doubtful (a client that
	// was its own bottleneck), printed last.
	Warnings []string `json:"warnings,omitempty"`
}

// ThresholdSummary is one threshold's final verdict.
type ThresholdSummary struct {
	Metric     string `json:"metric"` // metric or sub-metric name
	Expression string `json:"expression"`
	Stat       string `json:"stat"`
	OK         bool   `json:"ok"`
	// Observed is null when the metric had no samples (NoData).
	Observed    *float64 `json:"observed"`
	NoData      bool     `json:"no_data,omitempty"`
	AbortOnFail bool     `json:"abort_on_fail,omitempty"`
}

// CheckSummary counts one check in one group.
type CheckSummary struct {
	Name   string `json:"name"`
	Path   string `json:"path"` // group path, "" for the root
	Passes int64  `json:"passes"`
	Fails  int64  `json:"fails"`
}

// GroupSummary is a node of the group tree: "::a::b" is b inside a.
type GroupSummary struct {
	Name   string          `json:"name"`
	Path   string          `json:"path"`
	Groups []*GroupSummary `json:"groups"`
	Checks []CheckSummary  `json:"checks"`
}

// MetricSummary is one metric's or sub-metric's aggregate.
type MetricSummary struct {
	Type     string             `json:"type"`
	Contains string             `json:"contains"`
	Values   map[string]float64 `json:"values"`
	// Approximate is set when percentiles come from an HDR histogram, whose relative
	// error is at most ErrorBound.
	Approximate bool    `json:"approximate,omitempty"`
	ErrorBound  float64 `json:"error_bound,omitempty"`
	// Thresholds maps each threshold expression on this metric to its verdict.
	Thresholds map[string]bool `json:"thresholds,omitempty"`
	quiet      bool            // Metric.Quiet
}

// NewSummary builds the summary of a finished (or interrupted) run from its final
// snapshot and the threshold evaluation of that snapshot. The snapshot's Elapsed is the
// run duration: counter rates divide by it, as the thresholds did.
func NewSummary(snap *Snapshot, ev Evaluation, opts SummaryOptions, sections ...Section) *Summary {
	d := snap.Elapsed
	if len(opts.TrendStats) == 0 {
		opts.TrendStats = DefaultTrendStats()
	}
	if opts.TimeUnit == "" {
		opts.TimeUnit = "ms"
	}
	s := &Summary{
		Schema:            SummarySchema,
		TestRunDurationMs: float64(d) / float64(time.Millisecond),
		Options:           opts,
		Thresholds:        []ThresholdSummary{},
		Checks:            []CheckSummary{},
		Metrics:           map[string]*MetricSummary{},
		Sections:          sections,
	}
	for _, m := range snap.Metrics {
		s.Metrics[m.Name] = summarize(m, snap.Sink(m.Name), d, opts.TrendStats)
	}
	for _, sub := range snap.SubMetrics {
		s.Metrics[sub.Name] = summarize(sub.Parent, snap.Sink(sub.Name), d, opts.TrendStats)
	}
	for _, r := range ev.Results {
		th := r.Threshold
		ts := ThresholdSummary{Metric: th.SinkName(), Expression: th.Source, Stat: th.Stat.String(), OK: r.OK, NoData: r.NoData, AbortOnFail: th.AbortOnFail}
		if !r.NoData {
			v := r.Observed
			ts.Observed = &v
		}
		s.Thresholds = append(s.Thresholds, ts)
		if ms := s.Metrics[ts.Metric]; ms != nil {
			if ms.Thresholds == nil {
				ms.Thresholds = map[string]bool{}
			}
			ms.Thresholds[th.Source] = r.OK
		}
	}
	for _, c := range snap.Checks {
		s.Checks = append(s.Checks, CheckSummary{Name: c.Name, Path: c.Group, Passes: c.Passes, Fails: c.Fails})
	}
	s.RootGroup = groupTree(snap.Groups, s.Checks)
	return s
}

func summarize(m *Metric, sink Sink, d time.Duration, trendStats []Stat) *MetricSummary {
	ms := &MetricSummary{Type: m.Kind.String(), Contains: m.Contains.String(), Values: map[string]float64{}, quiet: m.Quiet}
	stats := map[Kind][]Stat{
		Counter: {{Name: "count"}, {Name: "rate"}},
		Gauge:   {{Name: "value"}, {Name: "min"}, {Name: "max"}},
		Rate:    {{Name: "rate"}, {Name: "passes"}, {Name: "fails"}},
		Trend:   trendStats,
	}[m.Kind]
	for _, st := range stats {
		if v, ok := sink.Value(st, d); ok {
			ms.Values[st.String()] = v
		}
	}
	if t, ok := sink.(*TrendSink); ok && t.Approximate() {
		ms.Approximate, ms.ErrorBound = true, t.ErrorBound()
	}
	return ms
}

// groupTree nests group paths ("::a::b") and hangs each check on its group.
func groupTree(paths []string, checks []CheckSummary) *GroupSummary {
	root := &GroupSummary{Groups: []*GroupSummary{}, Checks: []CheckSummary{}}
	byPath := map[string]*GroupSummary{"": root}
	var node func(path string) *GroupSummary
	node = func(path string) *GroupSummary {
		if g := byPath[path]; g != nil {
			return g
		}
		i := strings.LastIndex(path, "::")
		parent := root
		if i > 0 {
			parent = node(path[:i])
		}
		g := &GroupSummary{Name: path[i+2:], Path: path, Groups: []*GroupSummary{}, Checks: []CheckSummary{}}
		if i < 0 {
			g.Name = path
		}
		parent.Groups = append(parent.Groups, g)
		byPath[path] = g
		return g
	}
	for _, p := range paths {
		node(p)
	}
	for _, c := range checks {
		g := node(c.Path)
		g.Checks = append(g.Checks, c)
	}
	return root
}

// MarshalJSON adds the sections and the trend stats by name.
func (s *Summary) MarshalJSON() ([]byte, error) {
	type plain Summary
	sections := map[string]any{}
	for _, sec := range s.Sections {
		sections[sec.Name()] = sec.JSON()
	}
	stats := make([]string, len(s.Options.TrendStats))
	for i, st := range s.Options.TrendStats {
		stats[i] = st.String()
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// Expressions are full of < and >: keep them readable.
	enc.SetEscapeHTML(false)
	err := enc.Encode(struct {
		*plain
		Options  any            `json:"options"`
		Sections map[string]any `json:"sections"`
	}{(*plain)(s), struct {
		SummaryTrendStats []string `json:"summaryTrendStats"`
		SummaryOptions
	}{stats, s.Options}, sections})
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), err
}

// WriteJSON writes the summary as indented JSON (--summary-export).
func (s *Summary) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(s)
}
