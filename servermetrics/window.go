package servermetrics

import (
	"math"
	"sort"
	"sync"
	"time"
)

// Phase says when a page was read: before the scenarios began (VU init and setup()
// included), while they ran, or after they ended. Gauges are judged on pages read during the run; counters and
// histograms on the increase from the last page before the run to the last page.
type Phase string

// The phases.
const (
	Before Phase = "before"
	During Phase = "during"
	After  Phase = "after"
)

// DefaultMaxSeries bounds the series a window keeps: a page past it is kept in part and
// the rest counted.
const DefaultMaxSeries = 10_000

// Scrape is one read of the page: its points, or why it failed.
type Scrape struct {
	At     time.Duration // on the run's timeline
	Phase  Phase
	Points []Point
	Err    string // the failure's kind: "connect", "timeout", "status_404", "too_large", "malformed", …
	Detail string // one line on the failure, redacted
	// Refused counts the page's points past the scraper's MaxSeries, left out.
	Refused int
}

// Window folds the pages of one run. Its memory is bounded by the series it keeps, not
// by the run's length. It is safe for concurrent use.
type Window struct {
	mu        sync.Mutex
	maxSeries int
	series    map[string]*state
	order     []*state
	gauges    map[string]*gaugeGroup // by family+selector key
	watches   map[string][]map[string]string
	first     time.Duration
	last      time.Duration
	pages     int
	failed    map[string]int
	detail    map[string]string // the first detail of each failure kind
	refused   int64             // points of series past maxSeries
}

// state is one series' fold: its last value, its increase since first seen (counters,
// buckets, sums, counts), with Prometheus's reset rule: a value below the last one
// means the server restarted its count from zero.
type state struct {
	s        *Series
	last     float64
	increase float64
	seen     bool
}

// NewWindow returns an empty window keeping at most maxSeries series (0: the default).
func NewWindow(maxSeries int) *Window {
	if maxSeries <= 0 {
		maxSeries = DefaultMaxSeries
	}
	return &Window{maxSeries: maxSeries, series: map[string]*state{}, gauges: map[string]*gaugeGroup{},
		watches: map[string][]map[string]string{}, failed: map[string]int{}, detail: map[string]string{}}
}

// Watch makes the window follow a gauge family's value over the series sel selects, for
// a threshold on it: gauges are aggregated page by page, so the selections must be known
// before the pages come.
func (w *Window) Watch(family string, sel map[string]string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	family = canonical(family)
	for _, had := range w.watches[family] {
		if groupKey(family, had) == groupKey(family, sel) {
			return
		}
	}
	w.watches[family] = append(w.watches[family], sel)
}

// Add folds one page.
func (w *Window) Add(sc Scrape) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if sc.Err != "" {
		if w.failed[sc.Err] == 0 {
			w.detail[sc.Err] = sc.Detail
		}
		w.failed[sc.Err]++
		return
	}
	// A cumulative series first seen once the window has its baseline was created during
	// the run (prometheus_client makes a labelled series at its first observation): it
	// counted from 0, so its first value is all increase.
	born := w.pages > 0 && sc.Phase != Before
	if w.pages == 0 || sc.Phase == Before {
		w.first = sc.At
	}
	w.pages++
	w.last = max(w.last, sc.At)
	w.refused += int64(sc.Refused)
	var gauges []*state
	for _, p := range sc.Points {
		st := w.series[p.Series.Key()]
		if st == nil {
			if len(w.series) >= w.maxSeries {
				w.refused++
				continue
			}
			st = &state{s: p.Series, seen: born && !p.Series.isGauge()}
			w.series[p.Series.Key()] = st
			w.order = append(w.order, st)
		}
		st.fold(p.Value)
		if st.s.isGauge() {
			gauges = append(gauges, st)
		}
	}
	if sc.Phase == Before {
		// The last page before the scenarios began (VU init and setup() may take many) is
		// the counters' baseline: what the server did until then is not the run's.
		for _, st := range w.order {
			st.increase = 0
		}
	}
	w.foldGauges(gauges, sc)
}

func (st *state) fold(v float64) {
	inc := st.increase
	switch {
	case !st.seen:
		st.seen = true
	case v >= st.last:
		inc += v - st.last
	default: // reset
		inc += v
	}
	// A page of absurd values must not make the report unprintable: an increase past
	// float64 keeps its last finite value.
	if finite(inc) {
		st.increase = inc
	}
	st.last = v
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func (s *Series) isGauge() bool { return s.Type == typeGauge || s.Type == typeUntyped }

// foldGauges adds the page's value of every gauge group: each family as a whole, each
// of its stages, and each watched selection. One pass over the page's series: a page of
// thousands of stages costs what its series cost.
func (w *Window) foldGauges(page []*state, sc Scrape) {
	sums := map[string]*groupSum{}
	var keys []string
	add := func(family string, sel map[string]string, v float64) {
		key := groupKey(family, sel)
		g := sums[key]
		if g == nil {
			g = &groupSum{family: family, sel: sel}
			sums[key] = g
			keys = append(keys, key)
		}
		g.sum += v
		g.n++
	}
	for _, st := range page {
		family := st.s.Family
		add(family, nil, st.last)
		if v := st.s.label("stage"); v != "" {
			add(family, map[string]string{"stage": v}, st.last)
		}
		for _, sel := range w.watches[family] {
			if _, stageOnly := sel["stage"]; (len(sel) > 1 || !stageOnly) && st.s.matches(sel) {
				add(family, sel, st.last)
			}
		}
	}
	for _, key := range keys {
		s := sums[key]
		v := s.sum
		if averaged(s.family) {
			v /= float64(s.n)
		}
		g := w.gauges[key]
		if g == nil {
			if len(w.gauges) >= w.maxSeries {
				continue
			}
			g = &gaugeGroup{family: s.family, sel: s.sel}
			w.gauges[key] = g
		}
		if finite(v) && finite(g.all.sum+v) {
			g.add(sc.Phase, sc.At, v)
		}
	}
}

// groupSum is one gauge group's series on one page.
type groupSum struct {
	family string
	sel    map[string]string
	sum    float64
	n      int
}

func groupKey(family string, sel map[string]string) string {
	keys := make([]string, 0, len(sel))
	for k := range sel {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := family + "{"
	for i, k := range keys {
		if i > 0 {
			out += ","
		}
		out += k + ":" + sel[k]
	}
	return out + "}"
}

// gaugeGroup is one gauge's values page by page: over the pages read during the run,
// and over every page, used when the run was too short for one.
type gaugeGroup struct {
	family      string
	sel         map[string]string
	during, all gaugeStats
	timeline    timeline
}

func (g *gaugeGroup) add(ph Phase, at time.Duration, v float64) {
	g.all.add(v)
	if ph == During {
		g.during.add(v)
	}
	g.timeline.add(at, v)
}

// stats are the pages the group is judged on.
func (g *gaugeGroup) stats() gaugeStats {
	if g.during.n > 0 {
		return g.during
	}
	return g.all
}

type gaugeStats struct {
	n             int
	sum, min, max float64
	last          float64
}

func (s *gaugeStats) add(v float64) {
	if s.n == 0 || v < s.min {
		s.min = v
	}
	if s.n == 0 || v > s.max {
		s.max = v
	}
	s.n++
	s.sum += v
	s.last = v
}

func (s gaugeStats) mean() float64 {
	if s.n == 0 {
		return math.NaN()
	}
	return s.sum / float64(s.n)
}

// span is the time from the baseline page (the last before the run) to the last page,
// which counter rates divide by.
func (w *Window) span() time.Duration { return w.last - w.first }
