package htmlreport

import (
	"cmp"
	"encoding/json"
	"io"
	"slices"
	"strings"

	"github.com/omnik-dev/omnik/metrics"
)

// ComparisonSchema versions the data section of a comparison page.
const ComparisonSchema = "omnik.report.compare/v1"

// Comparison is the page omnik compare --html writes: the comparison (its JSON form,
// rows, warnings and gates, as omnik compare --json writes it) and each run's
// distributions, drawn overlaid.
type Comparison struct {
	Schema     string          `json:"schema"`
	Base       Side            `json:"base"`
	New        Side            `json:"new"`
	Comparison json.RawMessage `json:"comparison"`
}

// Side is one run of a comparison.
type Side struct {
	Title string          `json:"title"`
	Path  string          `json:"path"`
	Run   json.RawMessage `json:"run,omitempty"`
	// Dists are the run's whole-run and per-stage distributions. From a summary export
	// they are coarse, drawn through the percentiles it holds (Coarse is set).
	Dists  []Distribution `json:"distributions"`
	Coarse bool           `json:"coarse,omitempty"`
}

// Overlaid are the distributions a comparison draws: the whole run's, and each stage's.
func (c *Collector) Overlaid() []Distribution {
	c.mu.Lock()
	defer c.mu.Unlock()
	return orEmpty(slices.DeleteFunc(c.dists.list(), func(d Distribution) bool {
		return d.Group != groupAll && !strings.HasPrefix(d.Group, groupStage)
	}))
}

// CoarseDistributions are the distributions a summary export's metrics still say
// something about: each Trend metric without tags, drawn through its min, median,
// percentiles and max.
func CoarseDistributions(ms map[string]*metrics.MetricSummary) []Distribution {
	out := []Distribution{}
	for name, m := range ms {
		if m.Type != "trend" || strings.Contains(name, "{") {
			continue
		}
		d := Distribution{Measure: name, Group: groupAll, Approximate: m.Approximate, Count: int64(m.Values["count"]),
			Stats: Stats{Mean: Float(m.Values["avg"]), P50: Float(m.Values["med"]), P90: Float(m.Values["p(90)"]),
				P99: Float(m.Values["p(99)"]), Max: Float(m.Values["max"])}}
		if m.Contains == "time" {
			d.Unit = "ms"
		}
		for stat, v := range m.Values {
			if q, ok := quantileOf(stat); ok {
				d.Points = append(d.Points, [2]Float{Float(v), Float(q)})
			}
		}
		if len(d.Points) < 2 {
			continue
		}
		slices.SortFunc(d.Points, func(a, b [2]Float) int { return cmp.Compare(a[1], b[1]) })
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b Distribution) int { return strings.Compare(a.Measure, b.Measure) })
	return out
}

// quantileOf is the quantile a summary statistic stands for: min 0, med 0.5, p(N) N/100,
// max 1.
func quantileOf(stat string) (float64, bool) {
	switch stat {
	case "min":
		return 0, true
	case "med":
		return 0.5, true
	case "max":
		return 1, true
	}
	st, err := metrics.ParseStat(stat)
	if err != nil || st.Name != "p" {
		return 0, false
	}
	return st.P / 100, true
}

// WriteHTML writes the comparison page, self-contained as the report is.
func (c *Comparison) WriteHTML(w io.Writer) error {
	c.Schema = ComparisonSchema
	payload, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return writePage(w, page{title: "omnik compare: " + c.Base.Title + " → " + c.New.Title, payload: payload, script: compareJS,
		nav: [][2]string{{"gates", "Gates"}, {"warnings", "Warnings"}, {"rows", "Statistics"}, {"distributions", "Distributions"}}})
}
