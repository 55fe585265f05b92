package report

import (
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/omnik-dev/omnik/metrics"
)

// Dist summarises one list of samples in the unit it is printed in.
type Dist struct {
	N int // samples behind the statistics; 0 means the list was empty and all values are 0
	// ErrorBound is 0 while the statistics are exact. Past Options.ExactSamples values it
	// is the relative error of Median and Percentiles, which then come from an HDR
	// histogram (metrics.HDRRelativeError, plus metrics.HDRAbsoluteError·scale near 0);
	// N and Mean stay exact.
	ErrorBound  float64
	Mean        float64
	Median      float64
	Percentiles []Percentile // one per requested percentile, in the order requested
}

// Percentile is one `P{p}` row.
type Percentile struct {
	P     float64
	Value float64
}

// summarize computes the statistics of xs and multiplies them by scale afterwards, as the
// reference does (`np.mean(x) * 1000`). An empty list gives zeros, never NaN.
func summarize(xs []float64, ps []float64, scale float64) Dist {
	d := Dist{N: len(xs), Percentiles: make([]Percentile, len(ps))}
	for i, p := range ps {
		d.Percentiles[i].P = p
	}
	if len(xs) == 0 {
		return d
	}
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	var sum float64
	for _, x := range sorted {
		sum += x
	}
	d.Mean = sum / float64(len(sorted)) * scale
	d.Median = median(sorted) * scale
	for i, p := range ps {
		d.Percentiles[i].Value = percentile(sorted, p) * scale
	}
	return d
}

// seconds converts client durations to float seconds, the reference's unit.
func seconds(ds []time.Duration) []float64 {
	s := make([]float64, len(ds))
	for i, d := range ds {
		s[i] = d.Seconds()
	}
	return s
}

// median is np.median: the mean of the two middle values when n is even.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// percentile is numpy's default "linear" method on sorted, non-empty x, with numpy's
// operation order (index (n-1)*(p/100), interpolation from the nearer end) so the last
// digit agrees too.
func percentile(sorted []float64, p float64) float64 {
	h := float64(len(sorted)-1) * (p / 100)
	lo := int(math.Floor(h))
	if lo >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	a, b, t := sorted[lo], sorted[lo+1], h-float64(lo)
	if t >= 0.5 {
		return b - (b-a)*(1-t)
	}
	return a + (b-a)*t
}

// percentileLabel renders p as the reference does: `99` for integers, else Python's
// shortest float text (`99.9`). Go's 'g' matches Python's repr on [0, 100].
func percentileLabel(p float64) string {
	if p == math.Trunc(p) {
		return strconv.FormatInt(int64(p), 10)
	}
	return strconv.FormatFloat(p, 'g', -1, 64)
}

// series is one of the reference's sample lists (§5) kept in a Trend sink: every value
// while there are at most the budget, so the statistics are the reference's to the last
// digit, and HDR histograms beyond, so a soak test's memory stays bounded.
type series struct{ sink *metrics.TrendSink }

func newSeries(budget int) series { return series{metrics.NewTrendSink(budget)} }

func (s series) add(v float64) { s.sink.Add(metrics.Sample{Value: v}) }

// merge adds o's values; it cannot fail, both being Trend sinks.
func (s series) merge(o series) { _ = s.sink.Merge(o.sink) }

// dist summarises the list in the printed unit (values × scale): with summarize while
// exact, from the sink's histogram beyond.
func (s series) dist(ps []float64, scale float64) Dist {
	if vs, exact := s.sink.Values(); exact {
		return summarize(vs, ps, scale)
	}
	stat := func(st metrics.Stat) float64 {
		v, _ := s.sink.Value(st, 0)
		return v * scale
	}
	d := Dist{N: int(s.sink.Count()), ErrorBound: s.sink.ErrorBound(), Percentiles: make([]Percentile, len(ps)),
		Mean: stat(metrics.Stat{Name: "avg"}), Median: stat(metrics.Stat{Name: "med"})}
	for i, p := range ps {
		d.Percentiles[i] = Percentile{P: p, Value: stat(metrics.Percentile(p))}
	}
	return d
}
