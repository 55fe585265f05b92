package promwrite

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/omnik-dev/omnik/metrics"
	"github.com/prometheus/prometheus/prompb"
)

// NativeSchema is the native histograms' resolution: schema 3 splits every power of two
// into 8 buckets, each 2^(1/8) ≈ 1.09 times the one below, so a quantile is off by at
// most one bucket's 9% width (about 4.5% from its middle). It is client_golang's
// default resolution (bucket factor 1.1), and a Trend from 1 ms to 10 minutes spans
// at most 154 buckets, of which a run fills only those its values reach.
const NativeSchema = 3

// nativeZeroThreshold is client_golang's default: only values that are 0 in practice
// (an internal stream's first chunk at once) land in the zero bucket.
var nativeZeroThreshold = math.Ldexp(1, -128)

// nativeBounds are the schema's bucket bounds within one power of two, as fractions of
// math.Frexp: bucket j of exponent e ends at nativeBounds[j]·2^e.
var nativeBounds = func() []float64 {
	n := 1 << NativeSchema
	b := make([]float64, n)
	for j := range b {
		b[j] = math.Exp2(float64(j)/float64(n)) / 2
	}
	return b
}()

// NativeBucket is the index of the native bucket holding v > 0: the bucket
// (2^((i-1)/8), 2^(i/8)].
func NativeBucket(v float64) int32 {
	frac, exp := math.Frexp(v)
	return int32(sort.SearchFloat64s(nativeBounds, frac) + (exp-1)*len(nativeBounds))
}

// nativeHist is a native histogram's cumulative state.
type nativeHist struct {
	count, zero uint64
	sum         float64
	pos, neg    map[int32]uint64
}

func newNativeHist() *nativeHist {
	return &nativeHist{pos: map[int32]uint64{}, neg: map[int32]uint64{}}
}

func (h *nativeHist) add(v float64) {
	h.count++
	h.sum += v
	switch a := math.Abs(v); {
	case a <= nativeZeroThreshold:
		h.zero++
	case v > 0:
		h.pos[NativeBucket(a)]++
	default:
		h.neg[NativeBucket(a)]++
	}
}

// proto encodes the histogram as remote write v1 carries it: integer counts, each span
// a run of consecutive buckets, each delta a bucket's count minus the previous one's.
func (h *nativeHist) proto(ts int64) prompb.Histogram {
	p := prompb.Histogram{
		Count: &prompb.Histogram_CountInt{CountInt: h.count}, Sum: h.sum,
		Schema: NativeSchema, ZeroThreshold: nativeZeroThreshold,
		ZeroCount: &prompb.Histogram_ZeroCountInt{ZeroCountInt: h.zero}, Timestamp: ts,
	}
	p.PositiveSpans, p.PositiveDeltas = spans(h.pos)
	p.NegativeSpans, p.NegativeDeltas = spans(h.neg)
	return p
}

func spans(buckets map[int32]uint64) ([]prompb.BucketSpan, []int64) {
	if len(buckets) == 0 {
		return nil, nil
	}
	keys := make([]int32, 0, len(buckets))
	for k := range buckets {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var ss []prompb.BucketSpan
	deltas := make([]int64, len(keys))
	var prev int64
	for i, k := range keys {
		switch {
		case i == 0:
			ss = append(ss, prompb.BucketSpan{Offset: k, Length: 1})
		case k == keys[i-1]+1:
			ss[len(ss)-1].Length++
		default:
			ss = append(ss, prompb.BucketSpan{Offset: k - keys[i-1] - 1, Length: 1})
		}
		c := int64(buckets[k])
		deltas[i] = c - prev
		prev = c
	}
	return ss, deltas
}

// decades builds a classic layout: 1, 1.5, 2, 3, 4, 5, 7 times each power of ten from
// 10^lo to 10^hi. No bucket is more than 1.5 times as wide as its lower bound, so a
// classic quantile is off by at most half that bucket, and the bounds read well in a
// heatmap.
func decades(lo, hi int) []float64 {
	var b []float64
	for e := lo; e <= hi; e++ {
		for _, m := range []float64{1, 1.5, 2, 3, 4, 5, 7} {
			// Round to the decimal the bound names: 1.5e-3, not 0.0015000000000000002.
			b = append(b, roundSig(m*math.Pow(10, float64(e))))
		}
	}
	return b
}

// roundSig is v to three significant digits, through its decimal text.
func roundSig(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
	return r
}

// The classic layouts, in the unit sent (seconds, bytes, plain numbers).
var (
	// timeBounds: 1 ms to 700 s, latencies from a loopback chunk to a long generation.
	timeBounds = decades(-3, 2)
	// ratioBounds: real-time factors and other ratios around 1, from 0.01 to 70.
	ratioBounds = decades(-2, 1)
	// dataBounds: 1 kB to 7 GB.
	dataBounds = decades(3, 9)
	// countBounds: counts and throughputs, 1 to 7 million.
	countBounds = decades(0, 6)
)

// layoutFor picks m's classic layout by its value type; a unitless Trend whose name
// says rtf or ratio is a ratio.
func layoutFor(m *metrics.Metric) []float64 {
	switch {
	case m.Contains == metrics.Time:
		return timeBounds
	case m.Contains == metrics.Data:
		return dataBounds
	case strings.Contains(m.Name, "rtf") || strings.Contains(m.Name, "ratio"):
		return ratioBounds
	}
	return countBounds
}

// ClassicBounds is the classic bucket layout of m's histogram (upper bounds, +Inf left
// out), nil for a metric that is not a Trend.
func ClassicBounds(m *metrics.Metric) []float64 { return familyOf(m).bounds }

// classicHist is a classic histogram's cumulative state: counts per bucket, not yet
// cumulative; the last is +Inf.
type classicHist struct {
	bounds []float64
	counts []uint64
	sum    float64
	count  uint64
}

func newClassicHist(bounds []float64) *classicHist {
	return &classicHist{bounds: bounds, counts: make([]uint64, len(bounds)+1)}
}

func (h *classicHist) add(v float64) {
	// The first bound ≥ v: buckets are (previous, le].
	h.counts[sort.SearchFloat64s(h.bounds, v)]++
	h.sum += v
	h.count++
}
