package htmlreport

import (
	"cmp"
	"slices"
	"strings"

	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// distBudget is how many values each drawn distribution keeps exactly; past it an HDR
// histogram (relative error 0.1 %) stands in, which a plot cannot tell apart.
const distBudget = 20_000

// Group names: every successful request is in "all", in its scenario's group and in one
// group per modality it produced; a stage's values are in its stage's group.
const (
	groupAll      = "all"
	groupScenario = "scenario:"
	groupModality = "modality:"
	groupStage    = "stage:"
)

// stageMeasures are the per-stage distributions drawn: the stage's generation time, its
// time to first output on the server, its postprocessing.
var stageMeasures = []record.StageMeasure{record.StageMeasureNamed("stage_gen_time"),
	record.StageMeasureNamed("stage_serving_ttfo"), record.StageMeasureNamed("stage_postprocess")}

// Bounds on the groups a file can make: scenario names are the script's and stage names
// the server's, and a server that puts an id in its stage names must not grow the report.
const (
	maxScenarios = 64
	maxStages    = 32
)

// distributions keeps every per-request measure of the successful requests, by group.
type distributions struct {
	sinks     map[distKey]*metrics.TrendSink
	scenarios map[string]bool      // the scenarios with a group
	stageInfo map[string]stageInfo // by stage name
}

// stageInfo places a stage: its id orders the stages, its kind names its first output.
type stageInfo struct {
	id   int
	kind record.StageKind
}

type distKey struct{ measure, group string }

func newDistributions() *distributions {
	return &distributions{sinks: map[distKey]*metrics.TrendSink{}, scenarios: map[string]bool{}, stageInfo: map[string]stageInfo{}}
}

func (d *distributions) sink(measure, group string) *metrics.TrendSink {
	k := distKey{measure, group}
	s := d.sinks[k]
	if s == nil {
		s = metrics.NewTrendSink(distBudget)
		d.sinks[k] = s
	}
	return s
}

func (d *distributions) add(r *record.Record) {
	if !r.OK() {
		return
	}
	groups := append(make([]string, 0, 5), groupAll)
	if r.Scenario != "" && admit(d.scenarios, r.Scenario, maxScenarios) {
		groups = append(groups, groupScenario+r.Scenario)
	}
	for _, m := range modalities(r) {
		groups = append(groups, groupModality+m)
	}
	for _, m := range record.Measures {
		var sinks []*metrics.TrendSink
		m.Each(r, func(v float64) {
			if sinks == nil {
				for _, g := range groups {
					sinks = append(sinks, d.sink(m.Name, g))
				}
			}
			for _, s := range sinks {
				s.AddValue(v)
			}
		})
	}
	for _, st := range r.Stages {
		if _, ok := d.stageInfo[st.DisplayName()]; !ok && len(d.stageInfo) >= maxStages {
			continue
		}
		group := groupStage + st.DisplayName()
		d.stageInfo[st.DisplayName()] = stageInfo{st.ID, record.KindOf(st.FinalOutputType, st.OutputUnitType)}
		for _, m := range stageMeasures {
			m.Each(st, func(v float64) { d.sink(m.Name, group).AddValue(v) })
		}
	}
}

// admit reports whether name has, or may take, one of at most limit places in set.
func admit(set map[string]bool, name string, limit int) bool {
	if !set[name] && len(set) < limit {
		set[name] = true
	}
	return set[name]
}

// modalities are the outputs a request produced.
func modalities(r *record.Record) []string {
	var out []string
	if len(r.TextChunks) > 0 {
		out = append(out, record.ModalityText)
	}
	if len(r.AudioChunks) > 0 {
		out = append(out, record.ModalityAudio)
	}
	if len(r.ImageTimes) > 0 || r.Images.Count > 0 {
		out = append(out, record.ModalityImage)
	}
	return out
}

// cdfQuantiles are the quantiles a CDF is drawn at: every percent, denser in the tail.
var cdfQuantiles = func() []float64 {
	var q []float64
	for i := 0; i <= 99; i++ {
		q = append(q, float64(i))
	}
	return append(q, 99.5, 99.9, 99.95, 99.99, 100)
}()

// Distribution is one measure of one group, as the report draws it.
type Distribution struct {
	Measure     string     `json:"measure"`
	Group       string     `json:"group"`
	Unit        string     `json:"unit"` // "ms" or ""
	Count       int64      `json:"count"`
	Approximate bool       `json:"approximate,omitempty"`
	Stats       Stats      `json:"stats"`
	Points      [][2]Float `json:"cdf"` // [value, quantile 0..1], ascending
}

// Stats are a distribution's summary statistics.
type Stats struct {
	Mean Float `json:"mean"`
	P50  Float `json:"p50"`
	P90  Float `json:"p90"`
	P99  Float `json:"p99"`
	Max  Float `json:"max"`
}

func (d *distributions) list() []Distribution {
	units := map[string]string{}
	for _, m := range record.Measures {
		units[m.Name] = unit(m.Time)
	}
	for _, m := range stageMeasures {
		units[m.Name] = unit(m.Time)
	}
	var out []Distribution
	for k, s := range d.sinks {
		dist := Distribution{Measure: k.measure, Group: k.group, Unit: units[k.measure], Count: s.Count(),
			Approximate: s.Approximate(), Stats: statsOf(s)}
		last := Float(-1)
		for _, q := range cdfQuantiles {
			v := Float(value(s, metrics.Percentile(q)))
			if len(dist.Points) > 0 && v == last && q < 100 {
				// A step of equal values: only its top quantile matters to the curve.
				dist.Points[len(dist.Points)-1][1] = Float(q / 100)
				continue
			}
			dist.Points = append(dist.Points, [2]Float{v, Float(q / 100)})
			last = v
		}
		out = append(out, dist)
	}
	slices.SortFunc(out, func(a, b Distribution) int {
		return cmp.Or(strings.Compare(a.Measure, b.Measure), cmp.Compare(groupOrder(a.Group), groupOrder(b.Group)), strings.Compare(a.Group, b.Group))
	})
	return out
}

func groupOrder(g string) int {
	switch {
	case g == groupAll:
		return 0
	case strings.HasPrefix(g, groupScenario):
		return 1
	case strings.HasPrefix(g, groupModality):
		return 2
	}
	return 3
}

func statsOf(s *metrics.TrendSink) Stats {
	return Stats{Mean: Float(value(s, metrics.Stat{Name: "avg"})), P50: Float(value(s, metrics.Stat{Name: "med"})),
		P90: Float(value(s, metrics.Percentile(90))), P99: Float(value(s, metrics.Percentile(99))), Max: Float(value(s, metrics.Stat{Name: "max"}))}
}

func value(s *metrics.TrendSink, st metrics.Stat) float64 {
	v, _ := s.Value(st, 0)
	return v
}

func unit(time bool) string {
	if time {
		return "ms"
	}
	return ""
}
