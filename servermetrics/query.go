package servermetrics

import (
	"math"
	"slices"
	"sort"
)

// histogram is a histogram's increase over the window, summed over the series selected.
type histogram struct {
	count, sum float64
	buckets    []bucket // by upper bound; counts cumulative
}

type bucket struct{ le, count float64 }

// familyType is the type of a family the window has seen, "" when it has not.
func (w *Window) familyType(family string) string {
	for _, st := range w.order {
		if st.s.Family == family {
			return st.s.Type
		}
	}
	return ""
}

// histogram sums the increases of a histogram's buckets, sum and count over the series
// sel selects.
func (w *Window) histogram(family string, sel map[string]string) (histogram, bool) {
	var h histogram
	les := map[float64]float64{}
	found := false
	for _, st := range w.order {
		if st.s.Family != family || !st.s.matches(sel) {
			continue
		}
		found = true
		switch st.s.Part {
		case partBucket:
			les[st.s.LE] += st.increase
		case partSum:
			h.sum += st.increase
		case partCount:
			h.count += st.increase
		}
	}
	for le, n := range les {
		h.buckets = append(h.buckets, bucket{le, n})
	}
	sort.Slice(h.buckets, func(i, j int) bool { return h.buckets[i].le < h.buckets[j].le })
	return h, found
}

// quantile is Prometheus's histogram_quantile: linear within the bucket the rank falls
// in, the first bucket starting at 0, and the largest finite bound for a rank in +Inf.
// Its error is at most the width of that bucket.
func (h histogram) quantile(q float64) (float64, bool) {
	v, _, _, ok := h.quantileIn(q)
	return v, ok
}

// quantileIn is quantile with the bounds of the bucket it fell in: its error bound.
func (h histogram) quantileIn(q float64) (v, lo, hi float64, ok bool) {
	// As histogram_quantile: no +Inf bucket (a page cut at the series cap), no answer;
	// counts that fall from one bound to the next (each bucket's own reset) are raised to
	// the one below, as its ensureMonotonic does.
	if len(h.buckets) < 2 || !math.IsInf(h.buckets[len(h.buckets)-1].le, 1) {
		return 0, 0, 0, false
	}
	h.buckets = slices.Clone(h.buckets)
	for i := 1; i < len(h.buckets); i++ {
		h.buckets[i].count = max(h.buckets[i].count, h.buckets[i-1].count)
	}
	total := h.buckets[len(h.buckets)-1].count
	if total <= 0 {
		return 0, 0, 0, false
	}
	rank := q * total
	lower, below := 0.0, 0.0
	for i, b := range h.buckets {
		if b.count >= rank && b.count > below {
			if math.IsInf(b.le, 1) {
				if i == 0 {
					return 0, 0, 0, false
				}
				return lower, lower, b.le, true
			}
			if i == 0 && b.le <= 0 {
				return b.le, b.le, b.le, true
			}
			return lower + (b.le-lower)*(rank-below)/(b.count-below), lower, b.le, true
		}
		lower, below = b.le, b.count
	}
	last := h.buckets[len(h.buckets)-1].le
	return last, last, last, true
}

func (h histogram) mean() (float64, bool) {
	if h.count <= 0 {
		return 0, false
	}
	return h.sum / h.count, true
}

// counter is a counter's increase and last value summed over the series sel selects.
func (w *Window) counter(family string, sel map[string]string) (increase, last float64, ok bool) {
	for _, st := range w.order {
		if st.s.Family == family && st.s.matches(sel) {
			increase += st.increase
			last += st.last
			ok = true
		}
	}
	return increase, last, ok
}

// gauge is a gauge group's pages.
func (w *Window) gauge(family string, sel map[string]string) (gaugeStats, bool) {
	g := w.gauges[groupKey(family, sel)]
	if g == nil {
		return gaugeStats{}, false
	}
	return g.stats(), true
}
