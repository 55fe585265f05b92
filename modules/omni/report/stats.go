package report

import (
	"math"
	"strconv"

	"github.com/omnik-dev/omnik/metrics"
)

// Dist summarises one list of samples in the unit it is printed in.
type Dist struct {
	N int // samples behind the statistics; 0 means the list was empty and all values are 0
	// ErrorBound is 0 while the statistics are exact. Past the run's exact-sample budget
	// it is the relative error of Median and Percentiles, which then come from an HDR
	// histogram (metrics.HDRRelativeError); N and Mean stay exact.
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

// series is one of the reference's sample lists (omni-metrics.md §5), kept in the Trend
// sink the metrics use: the same budget, the same numpy-linear percentile and the same
// HDR histograms beyond, so a printed row and a threshold on the same values agree.
type series struct{ sink *metrics.TrendSink }

func newSeries(budget int) series { return series{metrics.NewTrendSink(budget)} }

func (s series) add(v float64) { s.sink.AddValue(v) }

// dist summarises the list in the printed unit: values divided by div (1000 turns the
// metric's milliseconds into the block's seconds). An empty list gives zeros, never NaN.
func (s series) dist(ps []float64, div float64) Dist {
	d := Dist{N: int(s.sink.Count()), ErrorBound: s.sink.ErrorBound(), Percentiles: make([]Percentile, len(ps))}
	stat := func(st metrics.Stat) float64 {
		v, _ := s.sink.Value(st, 0)
		return v / div
	}
	for i, p := range ps {
		d.Percentiles[i].P = p
		if d.N > 0 {
			d.Percentiles[i].Value = stat(metrics.Percentile(p))
		}
	}
	if d.N > 0 {
		d.Mean, d.Median = stat(metrics.Stat{Name: "avg"}), stat(metrics.Stat{Name: "med"})
	}
	return d
}

// percentileLabel renders p as the reference does: `99` for integers, else Python's
// shortest float text (`99.9`). Go's 'g' matches Python's repr on [0, 100].
func percentileLabel(p float64) string {
	if p == math.Trunc(p) {
		return strconv.FormatInt(int64(p), 10)
	}
	return strconv.FormatFloat(p, 'g', -1, 64)
}

// clone is an independent copy: adding to one leaves the other as it was.
func (s series) clone() series { return series{s.sink.Clone().(*metrics.TrendSink)} }
