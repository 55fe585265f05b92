package compare

import "cmp"

// Stat is one statistic of a run.
type Stat struct {
	// Key names the statistic in gates and in the table: "serving.p99_ttft_ms",
	// "serving[chat].completed", "stage[thinker].mean_stage_gen_time_ms",
	// "ttft{scenario:chat}.p99" (docs/report.md).
	Key    string
	Group  Group
	Value  float64
	Unit   Unit
	Better Better
	// ErrorBound is the relative error of a median or percentile read from an HDR
	// histogram; 0 when it is exact.
	ErrorBound float64

	// zeroIfAbsent marks a count that a run without it had none of (a counter, failures
	// of one kind), unlike a percentile of nothing, which has no value.
	zeroIfAbsent bool
	order        order
}

// Section is the part of the summary a statistic comes from.
type Section int

// The sections, in the order the table prints them.
const (
	Serving Section = iota // the Serving Benchmark Result block
	Stage                  // a stage of the Stage Benchmark Result
	Metrics                // METRICS
)

// Group is where a statistic is printed: the whole run's or a scenario's Serving block,
// one of its stages, or METRICS.
type Group struct {
	Section  Section
	Scenario string // "" for the whole run's blocks (and METRICS)
	Stage    string // the stage's label, for Stage
}

// String is the group's title in the table.
func (g Group) String() string {
	title := map[Section]string{Serving: "Serving", Stage: "Stage " + g.Stage, Metrics: "METRICS"}[g.Section]
	if g.Scenario != "" {
		title += " (" + g.Scenario + ")"
	}
	return title
}

// Unit is a statistic's unit, when it is a time: gates may then give theirs.
type Unit string

// The time units of statistics.
const (
	None         Unit = ""
	Milliseconds Unit = "ms"
	Seconds      Unit = "s"
)

// Better says which way a statistic improves.
type Better int

// The directions.
const (
	Neutral Better = iota // neither: counts, sizes, configuration; never coloured
	Lower                 // latencies, times, failures, dropped iterations
	Higher                // throughputs, completed requests, success rates
)

func (b Better) String() string {
	return [...]string{"neutral", "lower", "higher"}[b]
}

// MarshalText writes the direction by name in JSON.
func (b Better) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// order places a statistic in the table: the whole run's groups first, each scenario's
// after, METRICS last; within a group, known fields in the Serving block's order, the
// others by name, and a distribution's mean, median and percentiles together.
type order struct {
	stage     int     // the stage's id
	field     int     // rank of the field (or field stem) among the known ones
	name, sub string  // the field's stem, or the metric's name and selector
	stat      float64 // rank of the aggregation
}

func (a Stat) compare(b Stat) int {
	ga, gb := a.Group, b.Group
	return cmp.Or(
		cmp.Compare(rankOf(ga.Section == Metrics), rankOf(gb.Section == Metrics)),
		cmp.Compare(ga.Scenario, gb.Scenario),
		cmp.Compare(ga.Section, gb.Section),
		cmp.Compare(a.order.stage, b.order.stage),
		cmp.Compare(ga.Stage, gb.Stage),
		cmp.Compare(a.order.field, b.order.field),
		cmp.Compare(a.order.name, b.order.name),
		cmp.Compare(a.order.sub, b.order.sub),
		cmp.Compare(a.order.stat, b.order.stat),
		cmp.Compare(a.Key, b.Key),
	)
}

func rankOf(b bool) int {
	if b {
		return 1
	}
	return 0
}
