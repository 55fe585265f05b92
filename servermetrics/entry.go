package servermetrics

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"time"
)

// EntryType is the result file's line type of one page.
const EntryType = "ServerScrape"

// entry is a page as the result file keeps it: the series first seen on it, the values
// that changed since the page before, and the series that left it. A run of an hour at
// one page a second costs what its changes cost, not 3,600 pages.
type entry struct {
	At     time.Duration `json:"offset_ns"`
	Phase  Phase         `json:"phase"`
	Error  string        `json:"error,omitempty"`
	Detail string        `json:"detail,omitempty"`
	Series []declared    `json:"series,omitempty"`
	Values [][2]float64  `json:"values,omitempty"` // [series id, value]
	Gone   []int         `json:"gone,omitempty"`
	// Refused counts points the scraper or the encoder left out (past their series caps).
	Refused int `json:"refused,omitempty"`
	// Full marks a page that lists every value it held, changed or not: a reader that
	// lost a line (an output that could not keep up) is right again from there.
	Full bool `json:"full,omitempty"`
}

// fullEvery is how often a page is written whole.
const fullEvery = 64

type declared struct {
	ID     int               `json:"id"`
	Family string            `json:"family"`
	Type   string            `json:"type"`
	Part   string            `json:"part,omitempty"`
	Labels map[string]string `json:"labels,omitempty"`
	LE     string            `json:"le,omitempty"`
}

// Encoder turns pages into entries. One per run; not safe for concurrent use (a
// scraper publishes from one goroutine at a time).
type Encoder struct {
	ids     map[string]int
	last    []float64
	present []bool
	pages   int
}

// NewEncoder returns an encoder with no series known.
func NewEncoder() *Encoder { return &Encoder{ids: map[string]int{}} }

// Entry is the page's entry, JSON-serialisable.
func (e *Encoder) Entry(sc Scrape) any {
	out := &entry{At: sc.At, Phase: sc.Phase, Error: sc.Err, Detail: sc.Detail, Refused: sc.Refused}
	if sc.Err != "" {
		return out
	}
	e.pages++
	out.Full = e.pages%fullEvery == 0
	now := make([]bool, len(e.present), len(e.present)+8)
	for _, p := range sc.Points {
		id, ok := e.ids[p.Series.Key()]
		if !ok && len(e.last) >= DefaultMaxSeries {
			out.Refused++
			continue
		}
		if !ok {
			id = len(e.last)
			e.ids[p.Series.Key()] = id
			e.last = append(e.last, p.Value)
			e.present = append(e.present, false)
			now = append(now, false)
			out.Series = append(out.Series, declare(id, p.Series))
			out.Values = append(out.Values, [2]float64{float64(id), p.Value})
		} else if out.Full || !e.present[id] || e.last[id] != p.Value {
			out.Values = append(out.Values, [2]float64{float64(id), p.Value})
		}
		e.last[id] = p.Value
		now[id] = true
	}
	for id, was := range e.present {
		if was && !now[id] {
			out.Gone = append(out.Gone, id)
		}
	}
	e.present = now
	return out
}

func declare(id int, s *Series) declared {
	d := declared{ID: id, Family: s.Family, Type: s.Type, Part: s.Part}
	if len(s.Labels) > 0 {
		d.Labels = map[string]string{}
		for _, l := range s.Labels {
			d.Labels[l.Name] = l.Value
		}
	}
	if s.Part == partBucket {
		d.LE = strconv.FormatFloat(s.LE, 'g', -1, 64)
	}
	return d
}

// Decoder reads entries back into pages, holding what the entries before said.
type Decoder struct {
	maxSeries int
	series    []*Series
	last      []float64
	present   []bool
}

// NewDecoder returns a decoder that refuses files declaring more than maxSeries series
// (0: DefaultMaxSeries).
func NewDecoder(maxSeries int) *Decoder {
	if maxSeries <= 0 {
		maxSeries = DefaultMaxSeries
	}
	return &Decoder{maxSeries: maxSeries}
}

// Decode reads one entry's data into its page.
func (d *Decoder) Decode(data json.RawMessage) (Scrape, error) {
	var e entry
	if err := json.Unmarshal(data, &e); err != nil {
		return Scrape{}, fmt.Errorf("server scrape: %w", err)
	}
	sc := Scrape{At: e.At, Phase: e.Phase, Err: e.Error, Detail: cut(e.Detail), Refused: max(e.Refused, 0)}
	switch e.Phase {
	case Before, During, After:
	default:
		return Scrape{}, fmt.Errorf("server scrape: unknown phase %q", e.Phase)
	}
	if sc.Err != "" {
		return sc, nil
	}
	for _, s := range e.Series {
		// A gap is a line the writer lost: its series stay unknown, the rest are read.
		if s.ID < len(d.series) || s.ID >= d.maxSeries {
			return Scrape{}, fmt.Errorf("server scrape: series %d declared again or past %d", s.ID, d.maxSeries)
		}
		ser, err := s.series()
		if err != nil {
			return Scrape{}, err
		}
		for len(d.series) <= s.ID {
			d.series = append(d.series, nil)
			d.last = append(d.last, 0)
			d.present = append(d.present, false)
		}
		d.series[s.ID] = ser
	}
	if e.Full {
		clear(d.present)
	}
	for _, v := range e.Values {
		id := int(v[0])
		if float64(id) != v[0] || id < 0 || id >= d.maxSeries {
			return Scrape{}, fmt.Errorf("server scrape: no series %v", v[0])
		}
		if id < len(d.series) && d.series[id] != nil {
			d.last[id], d.present[id] = v[1], true
		}
	}
	for _, id := range e.Gone {
		if id < 0 || id >= d.maxSeries {
			return Scrape{}, fmt.Errorf("server scrape: no series %d", id)
		}
		if id < len(d.series) {
			d.present[id] = false
		}
	}
	for id, ok := range d.present {
		if ok {
			sc.Points = append(sc.Points, Point{d.series[id], d.last[id]})
		}
	}
	return sc, nil
}

func (s declared) series() (*Series, error) {
	out := &Series{Family: s.Family, Type: s.Type, Part: s.Part}
	switch s.Type {
	case typeCounter, typeGauge, typeUntyped, typeHistogram, typeSummary:
	default:
		return nil, fmt.Errorf("server scrape: series %d has unknown type %q", s.ID, s.Type)
	}
	switch s.Part {
	case partValue, partSum, partCount:
	case partBucket:
		le, err := strconv.ParseFloat(s.LE, 64)
		if err != nil {
			return nil, fmt.Errorf("server scrape: series %d has le %q", s.ID, s.LE)
		}
		out.LE = le
	default:
		return nil, fmt.Errorf("server scrape: series %d has unknown part %q", s.ID, s.Part)
	}
	for k, v := range s.Labels {
		out.Labels = append(out.Labels, Label{k, v})
	}
	sort.Slice(out.Labels, func(i, j int) bool { return out.Labels[i].Name < out.Labels[j].Name })
	return out, nil
}
