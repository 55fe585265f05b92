package promwrite

import (
	"math"
	"sort"
	"strings"
	"time"

	"github.com/omnik-dev/omnik/metrics"
	"github.com/prometheus/prometheus/prompb"
)

// series is one metric with one label set, and what its samples add up to since the
// run started: every push sends the whole, so a failed push loses nothing the next one
// does not carry.
type series struct {
	fam    *family
	labels []prompb.Label // sorted by name, __name__ left out, testid in
	sum    float64        // Counter
	// Gauge: the latest value by sample time; equal times keep arrival order.
	last     float64
	lastTime time.Time
	trues    uint64 // Rate: non-zero samples
	falses   uint64
	native   *nativeHist  // Trend, unless the mode is classic
	classic  *classicHist // Trend, unless the mode is native
	// zeroAt is when the series was last known to be 0: the run's start, or just after
	// the push before it appeared. Its first push sends that 0 too, so rate() and
	// increase() see the first samples' increase; it is sent once, since a sample
	// older than one the receiver holds would be refused as out of order.
	zeroAt   int64
	zeroSent bool
}

func (s *series) add(v float64, at time.Time) {
	switch s.fam.kind {
	case metrics.Counter:
		s.sum += v
	case metrics.Gauge:
		if !at.Before(s.lastTime) {
			s.last, s.lastTime = v, at
		}
	case metrics.Rate:
		if v != 0 {
			s.trues++
		} else {
			s.falses++
		}
	case metrics.Trend:
		if s.native != nil {
			s.native.add(v)
		}
		if s.classic != nil {
			s.classic.add(v)
		}
	}
}

type seriesKey struct {
	m      *metrics.Metric
	labels string // the label set, encoded
}

// labelsOf is one tag set's labels, kept for the next samples: a record's samples
// share a few tag sets, in runs. Holding the pointer keeps its address from being
// reused by another set.
type labelsOf struct {
	tags   *metrics.TagSet
	key    string
	labels []prompb.Label
}

// maxRefusedKept bounds the set that counts refused series: past it the count is a floor.
const maxRefusedKept = 10_000

// maxNamesKept bounds the cache of sanitised tag keys.
const maxNamesKept = 1024

// state is the output's fold: owned by one goroutine, no locks.
type state struct {
	mode      Mode   // Auto until a receiver refuses native histograms
	testID    string // the spec's, which wins over a testid tag
	defaultID string // when neither the spec nor a tag set one
	tagID     string // the first testid tag seen, for the output's own series
	maxSeries int

	families map[*metrics.Metric]*family
	index    map[seriesKey]*series
	order    []*series // creation order: pushes list series alike each time
	cache    [4]labelsOf
	next     int
	names    map[string]string

	start        int64 // the run's start (milliseconds)
	selfZeroSent bool  // the output's own counters' 0 at the start went out
	zeroFloor    int64 // the zeroAt of series created now
	capped       int64 // samples of new series past maxSeries
	refused      map[seriesKey]struct{}
	refusedMore  bool // refused outgrew maxRefusedKept
}

func newState(c *Config, defaultID string, start int64) *state {
	return &state{
		mode: c.Mode, testID: c.TestID, defaultID: defaultID, maxSeries: c.MaxSeries, start: start, zeroFloor: start,
		families: map[*metrics.Metric]*family{}, index: map[seriesKey]*series{},
		names: map[string]string{}, refused: map[seriesKey]struct{}{},
	}
}

// fold adds a batch. Samples the pipeline does not fold (no metric, NaN, ±Inf) are left
// out here too, and counted there.
func (st *state) fold(batch []metrics.Sample) {
	for i := range batch {
		s := &batch[i]
		if s.Metric == nil || math.IsNaN(s.Value) || math.IsInf(s.Value, 0) {
			continue
		}
		l := st.labels(s.Tags)
		k := seriesKey{s.Metric, l.key}
		se := st.index[k]
		if se == nil {
			if se = st.newSeries(k, l.labels); se == nil {
				continue
			}
		}
		se.add(s.Value/se.fam.div, s.Time)
	}
}

func (st *state) newSeries(k seriesKey, labels []prompb.Label) *series {
	if len(st.order) >= st.maxSeries {
		st.capped++
		if _, ok := st.refused[k]; !ok {
			if len(st.refused) < maxRefusedKept {
				st.refused[k] = struct{}{}
			} else {
				st.refusedMore = true
			}
		}
		return nil
	}
	f := st.families[k.m]
	if f == nil {
		fam := familyOf(k.m)
		f = &fam
		st.families[k.m] = f
	}
	se := &series{fam: f, labels: labels, zeroAt: st.zeroFloor, zeroSent: f.kind == metrics.Gauge}
	if f.kind == metrics.Trend {
		if st.mode != Classic {
			se.native = newNativeHist()
		}
		if st.mode != Native {
			se.classic = newClassicHist(f.bounds)
		}
	}
	st.index[k] = se
	st.order = append(st.order, se)
	return se
}

// toClassic drops the native histograms once the receiver refused them; the classic
// ones were kept alongside from the start, so nothing is lost. The refused push was
// kept by nothing (Prometheus rolls it back), so the zeros it carried go again.
func (st *state) toClassic(refused *push) {
	for _, se := range refused.zeros {
		se.zeroSent = false
	}
	if refused.selfZero {
		st.selfZeroSent = false
	}
	st.mode = Classic
	for _, se := range st.order {
		if se.native != nil {
			se.native = nil
			// The _bucket, _sum and _count series are new to the receiver.
			se.zeroSent = false
		}
	}
}

func (st *state) labels(tags *metrics.TagSet) labelsOf {
	for _, c := range st.cache {
		if c.key != "" && c.tags == tags {
			return c
		}
	}
	l := st.resolve(tags)
	st.cache[st.next] = l
	st.next = (st.next + 1) % len(st.cache)
	return l
}

// resolve builds a tag set's labels: every tag with a value, its key sanitised, and
// testid (the spec's, else the tag's, else the generated one). Metadata (vu, iter,
// request ids) is not in tags, so it never becomes a label.
func (st *state) resolve(tags *metrics.TagSet) labelsOf {
	ls := make([]prompb.Label, 0, tags.Len()+1)
	id := st.testID
	for _, t := range tags.List() {
		if t.Key == LabelTestID {
			if st.tagID == "" {
				st.tagID = t.Value
			}
			if id == "" {
				id = labelValue(t.Value)
			}
			continue
		}
		n := st.labelName(t.Key)
		// Prometheus reads an empty value as no label: leave it out (modality "").
		if n != "" && t.Value != "" {
			ls = append(ls, prompb.Label{Name: n, Value: labelValue(t.Value)})
		}
	}
	if id == "" {
		id = st.defaultID
	}
	ls = append(ls, prompb.Label{Name: LabelTestID, Value: id})
	// Two keys that sanitise alike ("a-b", "a_b"): the first in tag order stays.
	sort.SliceStable(ls, func(i, j int) bool { return ls[i].Name < ls[j].Name })
	ls = dedupe(ls)
	var b strings.Builder
	for _, l := range ls {
		b.WriteString(l.Name)
		b.WriteByte(0xff)
		b.WriteString(l.Value)
		b.WriteByte(0xff)
	}
	return labelsOf{tags: tags, key: b.String(), labels: ls}
}

func dedupe(ls []prompb.Label) []prompb.Label {
	out := ls[:0]
	for _, l := range ls {
		if len(out) > 0 && l.Name == out[len(out)-1].Name {
			continue
		}
		out = append(out, l)
	}
	return out
}

func (st *state) labelName(key string) string {
	if n, ok := st.names[key]; ok {
		return n
	}
	n := labelName(key)
	if len(st.names) < maxNamesKept {
		st.names[key] = n
	}
	return n
}

// selfID is the testid of the output's own series.
func (st *state) selfID() string {
	switch {
	case st.testID != "":
		return st.testID
	case st.tagID != "":
		return labelValue(st.tagID)
	}
	return st.defaultID
}
