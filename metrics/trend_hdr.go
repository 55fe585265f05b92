package metrics

import (
	"math"
	"math/bits"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// A Trend in approximate mode records round(|v|·hdrScale) as an integer in an HDR
// histogram with 3 significant digits (2048 sub-buckets): values below 2048 units are
// exact, above that a bucket is at most 1/1024 of its value wide. Reading a bucket's
// midpoint bounds the error by half a bucket, so a percentile is within
// HDRRelativeError of the exact order statistic, plus HDRAbsoluteError from rounding to
// the scale. With hdrScale = 1e6 a time metric in ms is recorded in ns; a Trend of ratios
// (RTF ≈ 0.05) still gets 3+ significant digits. Values above hdrHighest/hdrScale
// (4.6e12 units) are clamped; min and max stay exact.
const (
	hdrScale   = 1e6
	hdrHighest = int64(1) << 62
	hdrDigits  = 3
)

// HDRRelativeError bounds the relative error of an approximate percentile (≈0.049%).
const HDRRelativeError = 1.0 / 2048

// HDRAbsoluteError is the rounding error of the scaled integer recording, in metric units.
const HDRAbsoluteError = 0.5 / hdrScale

// hdrPair keeps negative values (as magnitudes) apart, since HDR records only v ≥ 0.
type hdrPair struct {
	pos, neg *hdr.Histogram
}

func newHDRPair() *hdrPair { return &hdrPair{pos: newHDR()} }

func newHDR() *hdr.Histogram { return hdr.New(1, hdrHighest, hdrDigits) }

func scaled(v float64) int64 {
	s := math.Round(math.Abs(v) * hdrScale)
	if s >= float64(hdrHighest) {
		return hdrHighest
	}
	return int64(s)
}

func (p *hdrPair) record(v float64) {
	h := p.pos
	if v < 0 {
		if p.neg == nil {
			p.neg = newHDR()
		}
		h = p.neg
	}
	// Cannot fail: scaled clamps to the trackable range.
	_ = h.RecordValue(scaled(v))
}

func (p *hdrPair) merge(o *hdrPair) {
	p.pos.Merge(o.pos)
	if o.neg != nil {
		if p.neg == nil {
			p.neg = newHDR()
		}
		p.neg.Merge(o.neg)
	}
}

func (p *hdrPair) clone() *hdrPair {
	cp := &hdrPair{pos: p.pos.Clone()}
	if p.neg != nil {
		cp.neg = p.neg.Clone()
	}
	return cp
}

// orderStat returns the midpoint of the bucket holding the i-th smallest value (0-based).
func (p *hdrPair) orderStat(i int64) float64 {
	var nn int64
	if p.neg != nil {
		nn = p.neg.TotalCount()
	}
	if i < nn {
		return -bucketMid(p.neg, nn-1-i)
	}
	return bucketMid(p.pos, i-nn)
}

func bucketMid(h *hdr.Histogram, j int64) float64 {
	n := h.TotalCount()
	// The library's rank is int(p/100·n + 0.5), so p = 100(j+1)/n selects rank j+1.
	hi := h.ValueAtPercentile(100 * float64(j+1) / float64(n))
	width := int64(1)
	if hi >= 2048 {
		width = int64(1) << (bits.Len64(uint64(hi)) - 11)
	}
	return (float64(hi) - float64(width-1)/2) / hdrScale
}
