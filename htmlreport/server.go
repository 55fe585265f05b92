package htmlreport

import (
	"cmp"
	"maps"
	"math"
	"slices"

	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/servermetrics"
)

// serverSection is the name of the summary's Server metrics section. The report draws
// it from its JSON (the *servermetrics.Report), not from its text: its reconciliation
// is a table of several columns, which parseBlocks would read as notes.
const serverSection = "server"

// maxServerRows bounds each list of the server part (gauges, counters, histograms,
// failure kinds): --server-metrics-all keeps every family of the page, which can hold
// thousands; the rest are counted and the page says how many it left out.
const maxServerRows = 64

// Server is the server's side of the run, from the summary's Server metrics section:
// its /metrics page's gauges over the run, its counters' increases, its histograms, and
// the client's numbers beside their server twins.
type Server struct {
	URL        string            `json:"url"` // redacted by the scraper
	Pages      int               `json:"pages"`
	Failed     []ServerFailure   `json:"failed"`
	WindowS    Float             `json:"window_s"`
	Refused    int64             `json:"refused_points,omitempty"`
	Gauges     []ServerGauge     `json:"gauges"`
	Counters   []ServerCounter   `json:"counters"`
	Histograms []ServerHistogram `json:"histograms"`
	Twins      []ServerTwin      `json:"reconciliation"`
	MaxRows    int               `json:"max_rows"` // the most rows of each list shown
	LeftOut    ServerLeftOut     `json:"left_out"`
}

// ServerLeftOut counts the rows past maxServerRows, by list.
type ServerLeftOut struct {
	Failed     int `json:"failed"`
	Gauges     int `json:"gauges"`
	Counters   int `json:"counters"`
	Histograms int `json:"histograms"`
}

// ServerFailure is one kind of failed page read: how many, and the first one's detail.
type ServerFailure struct {
	Kind   string `json:"kind"`
	Count  int    `json:"count"`
	Detail string `json:"detail"`
}

// ServerGauge is a gauge over the run's pages (a family's series summed, or averaged
// for shares; or one stage's), with its value page by page.
type ServerGauge struct {
	Name     string            `json:"name"` // as the Server metrics block names it: family{stage=talker}
	Family   string            `json:"family"`
	Selector map[string]string `json:"selector,omitempty"`
	Pages    int               `json:"pages"`
	Mean     Float             `json:"mean"`
	Max      Float             `json:"max"`
	Min      Float             `json:"min"`
	Last     Float             `json:"last"`
	Timeline GaugeTimeline     `json:"timeline"`
}

// GaugeTimeline is a gauge's points: each covers one page, or several merged once a
// long run passed the scraper's 512 points, with their mean and max.
type GaugeTimeline struct {
	T    []Float `json:"t"` // s on the run's timeline, as the records' offsets
	Mean []Float `json:"mean"`
	Max  []Float `json:"max"`
}

// ServerCounter is a counter's increase over the window and its rate.
type ServerCounter struct {
	Name     string `json:"name"`
	Family   string `json:"family"`
	Increase Float  `json:"increase"`
	Rate     Float  `json:"rate"` // per second of the window
}

// ServerHistogram is what a histogram observed in the window, in Unit: "ms" for a family
// in seconds (ending _s or _seconds), as the text block prints it; "" for the family's
// own unit.
type ServerHistogram struct {
	Name   string `json:"name"`
	Family string `json:"family"`
	Unit   string `json:"unit"`
	Count  Float  `json:"count"`
	Mean   Float  `json:"mean"`
	P50    Float  `json:"p50"`
	P99    Float  `json:"p99"`
}

// ServerTwin is a client metric beside its server twin, in the client's unit.
type ServerTwin struct {
	Metric  string         `json:"metric"`          // TTFT
	Stage   string         `json:"stage,omitempty"` // of a twin several stages observe
	Unit    string         `json:"unit"`            // ms, or "" for a ratio
	Client  string         `json:"client_metric"`
	Family  string         `json:"server_family"`
	ClientN Float          `json:"client_count"`
	ServerN Float          `json:"server_count"`
	Stats   []ServerTwinAt `json:"stats"`
}

// ServerTwinAt is one statistic of both sides; Diff is client − server, and Bucket the
// server bucket a percentile was interpolated in (its error bound).
type ServerTwinAt struct {
	Stat   string    `json:"stat"`
	Client Float     `json:"client"`
	Server Float     `json:"server"`
	Diff   Float     `json:"diff"`
	Bucket *[2]Float `json:"server_bucket,omitempty"`
}

// serverOf is the server part of the summary's server section, nil for a section of
// another shape.
func serverOf(sec metrics.Section) *Server {
	r, ok := sec.JSON().(*servermetrics.Report)
	if !ok || r == nil {
		return nil
	}
	s := &Server{URL: r.URL, Pages: r.Pages, Failed: []ServerFailure{}, WindowS: Float(r.WindowSeconds), Refused: r.Refused,
		Gauges: []ServerGauge{}, Counters: []ServerCounter{}, Histograms: []ServerHistogram{}, Twins: []ServerTwin{}, MaxRows: maxServerRows}
	for _, k := range slices.Sorted(maps.Keys(r.Failed)) {
		s.Failed = append(s.Failed, ServerFailure{Kind: k, Count: r.Failed[k], Detail: r.FailedDetail[k]})
	}
	s.Failed, s.LeftOut.Failed = capped(s.Failed)
	gauges := slices.Clone(r.Gauges)
	// The queues and the stages in flight first: a page of every family must not push
	// them past the cap.
	slices.SortStableFunc(gauges, func(a, b servermetrics.GaugeRow) int { return cmp.Compare(gaugeRank(a.Family), gaugeRank(b.Family)) })
	gauges, s.LeftOut.Gauges = capped(gauges)
	for _, g := range gauges {
		row := ServerGauge{Name: rowName(g.Family, g.Selector), Family: g.Family, Selector: g.Selector, Pages: g.Pages,
			Mean: Float(g.Mean), Max: Float(g.Max), Min: Float(g.Min), Last: Float(g.Last),
			Timeline: GaugeTimeline{T: []Float{}, Mean: []Float{}, Max: []Float{}}}
		for _, p := range g.Timeline {
			row.Timeline.T = append(row.Timeline.T, Float(p.At))
			row.Timeline.Mean = append(row.Timeline.Mean, Float(p.Mean))
			row.Timeline.Max = append(row.Timeline.Max, Float(p.Max))
		}
		s.Gauges = append(s.Gauges, row)
	}
	counters, left := capped(r.Counters)
	s.LeftOut.Counters = left
	for _, c := range counters {
		s.Counters = append(s.Counters, ServerCounter{Name: rowName(c.Family, c.Selector), Family: c.Family, Increase: Float(c.Increase), Rate: Float(c.Rate)})
	}
	hists, left := capped(r.Histograms)
	s.LeftOut.Histograms = left
	for _, h := range hists {
		factor, unit := servermetrics.Scale(h.Family)
		s.Histograms = append(s.Histograms, ServerHistogram{Name: rowName(h.Family, h.Selector), Family: h.Family, Unit: unit,
			Count: Float(h.Count), Mean: scaled(h.Mean, factor), P50: scaled(h.P50, factor), P99: scaled(h.P99, factor)})
	}
	// The twins are one row per client metric omnik knows a server twin of: a handful.
	for _, t := range r.Twins {
		row := ServerTwin{Metric: t.Metric, Stage: t.Selector["stage"], Unit: t.Unit, Client: t.Client, Family: t.Family,
			ClientN: Float(t.ClientN), ServerN: Float(t.ServerN), Stats: []ServerTwinAt{}}
		for _, st := range t.Stats {
			at := ServerTwinAt{Stat: st.Stat, Client: scaled(st.Client, 1), Server: scaled(st.Server, 1), Diff: scaled(st.Diff, 1)}
			if st.Bucket != nil {
				at.Bucket = &[2]Float{Float(st.Bucket[0]), Float(st.Bucket[1])}
			}
			row.Stats = append(row.Stats, at)
		}
		s.Twins = append(s.Twins, row)
	}
	return s
}

// capped is the first maxServerRows of rows and how many it left out.
func capped[T any](rows []T) ([]T, int) {
	if len(rows) <= maxServerRows {
		return rows, 0
	}
	return rows[:maxServerRows], len(rows) - maxServerRows
}

// keyGauges are the gauges that say how loaded the server was, by their name without
// the vllm: or vllm_omni: prefix.
var keyGauges = []string{"num_requests_running", "num_requests_waiting", "stage_inflight_requests",
	"stage_outputs_queue_size", "kv_cache_usage_perc", "gpu_cache_usage_perc"}

// gaugeRank orders the gauges: the key ones, then vLLM's and vLLM-Omni's others, then
// the rest of the page.
func gaugeRank(family string) int {
	switch name, ok := servermetrics.ShortName(family); {
	case !ok:
		return 2
	case slices.Contains(keyGauges, name):
		return 0
	}
	return 1
}

// scaled is v·factor, or NaN (null in the data) for no value.
func scaled(v *float64, factor float64) Float {
	if v == nil {
		return Float(math.NaN())
	}
	return Float(*v * factor)
}

// rowName names a row: family{label=value,…}.
func rowName(family string, sel map[string]string) string {
	if len(sel) == 0 {
		return family
	}
	return family + "{" + servermetrics.Selection(sel) + "}"
}
