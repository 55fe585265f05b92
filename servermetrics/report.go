package servermetrics

import (
	"fmt"
	"math"
	"sort"

	"github.com/omnik-dev/omnik/metrics"
)

// Report is the window summarised: the Server metrics block, its JSON in the summary
// export (sections.server) and the HTML report's server page.
type Report struct {
	URL           string            `json:"url"`
	Pages         int               `json:"pages"`
	Failed        map[string]int    `json:"failed,omitempty"`
	FailedDetail  map[string]string `json:"failed_detail,omitempty"`
	WindowSeconds float64           `json:"window_s"`
	Refused       int64             `json:"refused_points,omitempty"`
	Gauges        []GaugeRow        `json:"gauges"`
	Counters      []CounterRow      `json:"counters"`
	Histograms    []HistogramRow    `json:"histograms"`
	Twins         []TwinRow         `json:"reconciliation"`
}

// GaugeRow is a gauge over the run's pages.
type GaugeRow struct {
	Family   string            `json:"family"`
	Selector map[string]string `json:"selector,omitempty"`
	Pages    int               `json:"pages"`
	Mean     float64           `json:"mean"`
	Max      float64           `json:"max"`
	Min      float64           `json:"min"`
	Last     float64           `json:"last"`
	Timeline []TimePoint       `json:"timeline"`
}

// CounterRow is a counter's increase over the window, and its rate.
type CounterRow struct {
	Family   string            `json:"family"`
	Selector map[string]string `json:"selector,omitempty"`
	Increase float64           `json:"increase"`
	Rate     float64           `json:"rate"`
}

// HistogramRow is what a histogram observed in the window, in the family's unit.
type HistogramRow struct {
	Family   string            `json:"family"`
	Selector map[string]string `json:"selector,omitempty"`
	Count    float64           `json:"count"`
	Mean     *float64          `json:"mean"`
	P50      *float64          `json:"p50"`
	P99      *float64          `json:"p99"`
}

// TwinRow puts a client metric beside its server twin, in the client's unit
// (milliseconds for times). Diff is client − server: what the network, the frontend and
// the client's own read added.
type TwinRow struct {
	Metric string `json:"metric"`
	Unit   string `json:"unit,omitempty"` // "ms", or none for a ratio
	Client string `json:"client_metric"`
	Family string `json:"server_family"`
	// Selector is the stage of a twin several stages observe; nil for the family.
	Selector map[string]string `json:"selector,omitempty"`
	ClientN  float64           `json:"client_count"`
	ServerN  float64           `json:"server_count"`
	Stats    []TwinAt          `json:"stats"`
}

// TwinAt is one statistic of both sides.
type TwinAt struct {
	Stat   string   `json:"stat"` // mean, p50, p99
	Client *float64 `json:"client"`
	Server *float64 `json:"server"`
	Diff   *float64 `json:"diff"`
	// Bucket bounds a server percentile: the bucket it was interpolated in, its error.
	Bucket *[2]float64 `json:"server_bucket,omitempty"`
}

// Summarise reports the window; client reads the client's sinks (a summary snapshot's
// Sink) for the reconciliation, nil for none.
func (w *Window) Summarise(url string, client func(name string) metrics.Sink) *Report {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := &Report{URL: url, Pages: w.pages, WindowSeconds: w.span().Seconds(), Refused: w.refused,
		Gauges: []GaugeRow{}, Counters: []CounterRow{}, Histograms: []HistogramRow{}, Twins: []TwinRow{}}
	if len(w.failed) > 0 {
		r.Failed, r.FailedDetail = map[string]int{}, map[string]string{}
		for k, n := range w.failed {
			r.Failed[k], r.FailedDetail[k] = n, w.detail[k]
		}
	}
	for _, f := range w.families() {
		for _, sel := range w.selections(f.name) {
			switch f.typ {
			case typeGauge, typeUntyped:
				if g := w.gauges[groupKey(f.name, sel)]; g != nil {
					st := g.stats()
					r.Gauges = append(r.Gauges, GaugeRow{Family: f.name, Selector: sel, Pages: st.n, Mean: st.mean(),
						Max: st.max, Min: st.min, Last: st.last, Timeline: append([]TimePoint{}, g.timeline.points...)})
				}
			case typeCounter:
				inc, _, _ := w.counter(f.name, sel)
				rate, _ := perSecond(inc, w.span())
				if !finite(inc) || !finite(rate) {
					continue // series summing past float64: absurd, left out
				}
				r.Counters = append(r.Counters, CounterRow{Family: f.name, Selector: sel, Increase: inc, Rate: rate})
			default:
				h, _ := w.histogram(f.name, sel)
				if !finite(h.count) {
					continue
				}
				row := HistogramRow{Family: f.name, Selector: sel, Count: h.count}
				row.Mean = some(h.mean())
				row.P50 = some(h.quantile(0.5))
				row.P99 = some(h.quantile(0.99))
				r.Histograms = append(r.Histograms, row)
			}
		}
	}
	if client != nil {
		r.Twins = w.twins(client)
	}
	return r
}

type family struct{ name, typ string }

// families lists the families seen, by name.
func (w *Window) families() []family {
	seen := map[string]bool{}
	var out []family
	for _, st := range w.order {
		if !seen[st.s.Family] {
			seen[st.s.Family] = true
			out = append(out, family{st.s.Family, st.s.Type})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// selections are a family's rows: all its series, then each stage when it has several.
func (w *Window) selections(name string) []map[string]string {
	stages := map[string]bool{}
	for _, st := range w.order {
		if st.s.Family == name {
			if v := st.s.label("stage"); v != "" {
				stages[v] = true
			}
		}
	}
	out := []map[string]string{nil}
	if len(stages) < 2 {
		return out
	}
	names := make([]string, 0, len(stages))
	for s := range stages {
		names = append(names, s)
	}
	sort.Strings(names)
	for _, s := range names {
		out = append(out, map[string]string{"stage": s})
	}
	return out
}

// twins are the reconciliation rows of the client metrics whose server twin the window
// has seen. A twin observed by several stages (vLLM's engine metrics, relabelled by
// vLLM-Omni per stage: the thinker's TTFT and the talker's) gets a row per stage, each
// beside the same client numbers: which stage is the client's is the reader's call.
func (w *Window) twins(client func(string) metrics.Sink) []TwinRow {
	out := []TwinRow{}
	for _, tw := range twins {
		var fam string
		for _, f := range tw.families {
			if t := w.familyType(f); t == typeHistogram || t == typeSummary {
				fam = f
				break
			}
		}
		if fam == "" {
			continue
		}
		sels := w.activeStages(fam)
		if len(sels) < 2 {
			sels = []map[string]string{nil}
		}
		for _, sel := range sels {
			out = append(out, w.twin(tw, fam, sel, client(tw.client)))
		}
	}
	return out
}

// activeStages are the stages of a histogram family that observed something.
func (w *Window) activeStages(fam string) []map[string]string {
	var out []map[string]string
	for _, sel := range w.selections(fam)[1:] {
		if h, _ := w.histogram(fam, sel); h.count > 0 {
			out = append(out, sel)
		}
	}
	return out
}

func (w *Window) twin(tw twin, fam string, sel map[string]string, sink metrics.Sink) TwinRow {
	h, _ := w.histogram(fam, sel)
	factor, unit := Scale(fam)
	row := TwinRow{Metric: tw.label, Unit: unit, Client: tw.client, Family: fam, Selector: sel, ServerN: h.count}
	if sink != nil {
		row.ClientN = float64(sink.Count())
	}
	clientStat := func(st metrics.Stat) *float64 {
		if sink == nil || sink.Count() == 0 {
			return nil
		}
		return some(sink.Value(st, 0))
	}
	add := func(name string, c *float64, s float64, ok bool) *TwinAt {
		at := TwinAt{Stat: name, Client: c}
		if ok {
			at.Server = some(s*factor, true)
		}
		if c != nil && at.Server != nil {
			at.Diff = some(*c-*at.Server, true)
		}
		row.Stats = append(row.Stats, at)
		return &row.Stats[len(row.Stats)-1]
	}
	mean, ok := h.mean()
	add("mean", clientStat(metrics.Stat{Name: "avg"}), mean, ok)
	for _, q := range []float64{50, 99} {
		v, lo, hi, ok := h.quantileIn(q / 100)
		at := add(fmt.Sprintf("p%g", q), clientStat(metrics.Percentile(q)), v, ok)
		if ok && finite(hi) {
			at.Bucket = &[2]float64{lo * factor, hi * factor}
		}
	}
	return row
}

func some(v float64, ok bool) *float64 {
	if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}
