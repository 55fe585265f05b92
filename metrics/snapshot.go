package metrics

import (
	"sort"
	"strings"
	"time"
)

// SubMetricName is the canonical name of a selector's sub-metric: "ttft{stage:thinker}",
// pairs sorted by key. A nil selector gives the metric's own name.
func SubMetricName(metric string, sel *TagSet) string {
	if sel.Len() == 0 {
		return metric
	}
	var b strings.Builder
	b.WriteString(metric)
	b.WriteByte('{')
	for i, t := range sel.List() {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(t.Key)
		b.WriteByte(':')
		b.WriteString(t.Value)
	}
	b.WriteByte('}')
	return b.String()
}

// SubMetric is the part of a metric whose samples carry every tag of Selector.
type SubMetric struct {
	Name     string // canonical, see SubMetricName
	Parent   *Metric
	Selector *TagSet
}

// CheckCount is how often one check passed and failed, per group path.
type CheckCount struct {
	Group, Name   string
	Passes, Fails int64
}

// Snapshot is a consistent copy of the pipeline's sinks at one instant. It is owned by
// the caller: computing percentiles on it never touches the live pipeline.
type Snapshot struct {
	// Elapsed is the run time at the snapshot; Counter rates divide by it.
	Elapsed time.Duration
	// Series counts distinct metric+tags combinations seen.
	Series int
	// Metrics lists the metrics that received samples, sorted by name.
	Metrics []*Metric
	// SubMetrics lists the registered sub-metrics, sorted by name, with or without data.
	SubMetrics []SubMetric
	// Checks and Groups are in order of first appearance.
	Checks []CheckCount
	Groups []string
	// Invalid counts samples dropped for a nil metric or a non-finite value.
	Invalid int64
	sinks   map[string]Sink
}

// NewSnapshot builds a snapshot from sinks keyed by metric or sub-metric name, for
// merged results (omnik merge) and tests.
func NewSnapshot(elapsed time.Duration, sinks map[string]Sink) *Snapshot {
	return &Snapshot{Elapsed: elapsed, sinks: sinks}
}

// WithSinks returns a copy of s that also answers for extra's sinks, keyed by metric or
// sub-metric name: the sinks of External metrics, which their source supplies.
func (s *Snapshot) WithSinks(extra map[string]Sink) *Snapshot {
	cp := *s
	cp.sinks = make(map[string]Sink, len(s.sinks)+len(extra))
	for k, v := range s.sinks {
		cp.sinks[k] = v
	}
	for k, v := range extra {
		cp.sinks[k] = v
	}
	return &cp
}

// Sink returns the sink of a metric or canonical sub-metric name, or nil.
func (s *Snapshot) Sink(name string) Sink { return s.sinks[name] }

func sortMetrics(ms []*Metric) {
	sort.Slice(ms, func(i, j int) bool { return ms[i].Name < ms[j].Name })
}
