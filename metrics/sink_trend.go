package metrics

import (
	"math"
	"slices"
	"time"
)

// DefaultTrendBudget is how many values a Trend sink keeps exactly (800 kB) before it
// moves to an HDR histogram.
const DefaultTrendBudget = 100_000

// TrendSink keeps count, sum, min and max exactly and the distribution either as every
// value (exact percentiles, numpy's "linear" method) while at most budget values were
// added, or in HDR histograms beyond (see trend_hdr.go for the scale and error bound).
type TrendSink struct {
	budget   int
	n        int64
	sum, c   float64 // Neumaier-compensated sum: the mean stays exact over millions of values
	min, max float64
	values   []float64 // exact mode; nil once approximate
	sorted   bool      // values is in ascending order
	hist     *hdrPair  // approximate mode
}

// NewTrendSink returns a Trend sink that keeps up to budget values exactly; budget < 1
// means DefaultTrendBudget.
func NewTrendSink(budget int) *TrendSink {
	if budget < 1 {
		budget = DefaultTrendBudget
	}
	return &TrendSink{budget: budget}
}

// Add implements Sink.
func (t *TrendSink) Add(s Sample) { t.AddValue(s.Value) }

// AddValue adds one value: views that keep their own distributions (the omni report)
// use the same sink, so they compute every statistic the way thresholds do.
func (t *TrendSink) AddValue(v float64) {
	if t.n == 0 || v < t.min {
		t.min = v
	}
	if t.n == 0 || v > t.max {
		t.max = v
	}
	t.n++
	t.sum, t.c = neumaier(t.sum, t.c, v)
	switch {
	case t.hist != nil:
		t.hist.record(v)
	case len(t.values) < t.budget:
		t.values = append(t.values, v)
		t.sorted = false
	default:
		t.toHDR()
		t.hist.record(v)
	}
}

func neumaier(sum, c, v float64) (float64, float64) {
	s := sum + v
	if math.Abs(sum) >= math.Abs(v) {
		c += (sum - s) + v
	} else {
		c += (v - s) + sum
	}
	return s, c
}

// toHDR moves the exact values into histograms; from then on memory stays constant.
func (t *TrendSink) toHDR() {
	t.hist = newHDRPair()
	for _, v := range t.values {
		t.hist.record(v)
	}
	t.values, t.sorted = nil, false
}

// Merge implements Sink. The result stays exact while both are exact and fit the budget.
func (t *TrendSink) Merge(o Sink) error {
	ot, ok := o.(*TrendSink)
	if !ok {
		return mismatch(t, o)
	}
	if ot.n == 0 {
		return nil
	}
	if t.n == 0 || ot.min < t.min {
		t.min = ot.min
	}
	if t.n == 0 || ot.max > t.max {
		t.max = ot.max
	}
	t.n += ot.n
	t.sum, t.c = neumaier(t.sum, t.c, ot.sum)
	t.c += ot.c
	if t.hist == nil && ot.hist == nil && len(t.values)+len(ot.values) <= t.budget {
		t.values = append(t.values, ot.values...)
		t.sorted = false
		return nil
	}
	if t.hist == nil {
		t.toHDR()
	}
	if ot.hist != nil {
		t.hist.merge(ot.hist)
	}
	for _, v := range ot.values {
		t.hist.record(v)
	}
	return nil
}

// Clone implements Sink. The exact values are shared, not copied: the live sink only
// appends past the clone's length and sorting always works on a fresh copy, so a clone
// costs O(1) in exact mode and one histogram copy in approximate mode.
func (t *TrendSink) Clone() Sink {
	cp := *t
	cp.values = t.values[:len(t.values):len(t.values)]
	if t.hist != nil {
		cp.hist = t.hist.clone()
	}
	return &cp
}

// Count implements Sink.
func (t *TrendSink) Count() int64 { return t.n }

// Approximate reports whether percentiles come from the HDR histogram.
func (t *TrendSink) Approximate() bool { return t.hist != nil }

// ErrorBound is the largest relative error of a percentile: 0 while exact, else
// HDRRelativeError (plus HDRAbsoluteError for values near zero).
func (t *TrendSink) ErrorBound() float64 {
	if t.hist == nil {
		return 0
	}
	return HDRRelativeError
}

// Value implements Sink: count, avg, min, max, med, p(N).
func (t *TrendSink) Value(st Stat, _ time.Duration) (float64, bool) {
	if t.n == 0 {
		return 0, false
	}
	switch st.Name {
	case "count":
		return float64(t.n), true
	case "avg":
		return (t.sum + t.c) / float64(t.n), true
	case "min":
		return t.min, true
	case "max":
		return t.max, true
	case "med":
		return t.median(), true
	case "p":
		return t.percentile(st.P), true
	}
	return 0, false
}

// percentile is numpy's default "linear" method, with numpy's operation order (index
// (n-1)·(p/100), interpolation from the nearer end), so exact results agree with
// `vllm bench serve` to the last digit.
func (t *TrendSink) percentile(p float64) float64 {
	h := float64(t.n-1) * (p / 100)
	lo := int64(math.Floor(h))
	frac := h - float64(lo)
	at := t.orderStat
	if t.hist == nil {
		t.sort()
	}
	v := at(lo)
	if lo+1 < t.n && frac > 0 {
		b := at(lo + 1)
		if frac >= 0.5 {
			v = b - (b-v)*(1-frac)
		} else {
			v += (b - v) * frac
		}
	}
	// The histogram's midpoints can overshoot the exact extremes by half a bucket.
	return min(max(v, t.min), t.max)
}

// median is numpy's: the mean of the two middle values when the count is even.
func (t *TrendSink) median() float64 {
	if t.hist != nil || t.n%2 == 1 {
		return t.percentile(50)
	}
	t.sort()
	return (t.values[t.n/2-1] + t.values[t.n/2]) / 2
}

func (t *TrendSink) sort() {
	if t.sorted {
		return
	}
	// Sort a copy: clones may share the backing array.
	t.values = slices.Clone(t.values)
	slices.Sort(t.values)
	t.sorted = true
}

// orderStat is the i-th smallest value (0-based); exact mode requires sorted values.
func (t *TrendSink) orderStat(i int64) float64 {
	if t.hist != nil {
		return t.hist.orderStat(i)
	}
	return t.values[i]
}
