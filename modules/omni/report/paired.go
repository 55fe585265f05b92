package report

import (
	"math"
	"strconv"

	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// pairedMeasures are the per-request values compared pair by pair: one value a request,
// so a pair gives one difference each. ITL has many a request and pairs nothing.
var pairedMeasures = []struct{ name, label string }{
	{"ttft", "TTFT"}, {"tpot", "TPOT"}, {"e2el", "E2EL"}, {"audio_ttfp", "AUDIO_TTFP"},
}

// pairing matches the records of mirrored calls by their pair id and folds, for each two
// targets, the differences of their values. It keeps a call's records only until the
// last of them arrives, so its memory is the calls in flight plus, per two targets, one
// budgeted series per measure.
type pairing struct {
	pending map[string][]member
	diffs   map[[2]string]*pairDiffs // by target names in order; values are [1] − [0]
	budget  int
}

// member is what a pair needs of one record.
type member struct {
	target string
	ok     bool // succeeded: neither failed nor interrupted
	values [4]float64
	has    [4]bool
}

// pairDiffs are the differences of one two targets' pairs.
type pairDiffs struct {
	pairs, excluded int // pairs compared; pairs with a side that failed or was interrupted
	lists           [4]pairedList
}

type pairedList struct {
	series
	below, above, ties int // [1] below, above or equal to [0]
}

func newPairing(budget int) pairing {
	return pairing{pending: map[string][]member{}, diffs: map[[2]string]*pairDiffs{}, budget: budget}
}

// add folds r if a mirrored call made it.
func (p *pairing) add(r *record.Record, target string) {
	id := r.Metadata[record.MetaPair]
	size, err := strconv.Atoi(r.Metadata[record.MetaPairSize])
	if id == "" || err != nil || size < 2 {
		return
	}
	m := member{target: target, ok: r.OK()}
	for i, pm := range pairedMeasures {
		record.MeasureNamed(pm.name).Each(r, func(v float64) { m.values[i], m.has[i] = v, true })
	}
	group := append(p.pending[id], m)
	if len(group) < size {
		p.pending[id] = group
		return
	}
	delete(p.pending, id)
	for i := range group {
		for j := i + 1; j < len(group); j++ {
			p.compare(group[i], group[j])
		}
	}
}

func (p *pairing) compare(a, b member) {
	if a.target == b.target {
		return
	}
	if b.target < a.target {
		a, b = b, a
	}
	key := [2]string{a.target, b.target}
	d := p.diffs[key]
	if d == nil {
		d = &pairDiffs{}
		for i := range d.lists {
			d.lists[i].series = newSeries(p.budget)
		}
		p.diffs[key] = d
	}
	if !a.ok || !b.ok {
		d.excluded++
		return
	}
	d.pairs++
	for i := range pairedMeasures {
		if !a.has[i] || !b.has[i] {
			continue
		}
		l := &d.lists[i]
		diff := b.values[i] - a.values[i]
		l.add(diff)
		switch {
		case diff < 0:
			l.below++
		case diff > 0:
			l.above++
		default:
			l.ties++
		}
	}
}

// pairedResult compares a target with the baseline over the mirrored calls both served.
type pairedResult struct {
	Baseline, Target string
	Pairs            int // pairs where both sides succeeded
	Excluded         int // pairs where a side failed or was interrupted
	Metrics          []pairedDist
}

// pairedDist is one measure's per-pair differences, target − baseline, in ms.
type pairedDist struct {
	Name, Label  string // "ttft", "TTFT"
	N            int    // pairs where both sides had the value
	ErrorBound   float64
	Mean, Median float64
	// CILow and CIHigh bound the median difference with at least 95% confidence
	// (distribution-free: order statistics of the sign test); HasCI is false below 6 pairs.
	CILow, CIHigh float64
	HasCI         bool
	// Below, Above and Ties count the pairs where the target's value was lower, higher or
	// equal; SignP is the two-sided sign test's p-value of "neither side is lower more often".
	Below, Above, Ties int
	SignP              float64
}

// result compares target with baseline; ok is false when no mirrored call went to both.
func (p *pairing) result(baseline, target string) (pairedResult, bool) {
	key, flip := [2]string{baseline, target}, false
	if target < baseline {
		key, flip = [2]string{target, baseline}, true
	}
	d := p.diffs[key]
	if d == nil {
		return pairedResult{}, false
	}
	out := pairedResult{Baseline: baseline, Target: target, Pairs: d.pairs, Excluded: d.excluded}
	for i, pm := range pairedMeasures {
		l := d.lists[i]
		if l.sink.Count() == 0 {
			continue
		}
		pd := l.paired(flip)
		pd.Name, pd.Label = pm.name, pm.label
		out.Metrics = append(out.Metrics, pd)
	}
	return out, true
}

// paired summarises the differences; flip turns [1] − [0] into [0] − [1].
func (l pairedList) paired(flip bool) pairedDist {
	n := int(l.sink.Count())
	stat := func(st metrics.Stat) float64 { v, _ := l.sink.Value(st, 0); return v }
	// orderStat is the i-th smallest difference (0-based), read as the percentile that
	// falls on it.
	orderStat := func(i int) float64 {
		if n == 1 {
			return stat(metrics.Stat{Name: "min"})
		}
		return stat(metrics.Percentile(100 * float64(i) / float64(n-1)))
	}
	pd := pairedDist{N: n, ErrorBound: l.sink.ErrorBound(), Mean: stat(metrics.Stat{Name: "avg"}),
		Median: stat(metrics.Stat{Name: "med"}), Below: l.below, Above: l.above, Ties: l.ties}
	if k := medianCIRank(n); k > 0 {
		pd.CILow, pd.CIHigh, pd.HasCI = orderStat(k-1), orderStat(n-k), true
	}
	pd.SignP = signTestP(l.below, l.above)
	if flip {
		pd.Mean, pd.Median = -pd.Mean, -pd.Median
		pd.CILow, pd.CIHigh = -pd.CIHigh, -pd.CILow
		pd.Below, pd.Above = pd.Above, pd.Below
	}
	return pd
}

// medianCIRank is the largest k with P(X ≤ k−1) ≤ 2.5% for X ~ Binomial(n, ½): the k-th
// smallest and k-th largest of n values then bound their median with at least 95%
// confidence, whatever their distribution. 0 when n is too small (below 6).
func medianCIRank(n int) int {
	k, cdf := 0, 0.0
	for i := 0; i < n; i++ {
		cdf += binomialHalf(n, i)
		if cdf > 0.025 {
			break
		}
		k = i + 1
	}
	return k
}

// signTestP is the exact two-sided sign test: the chance, were either side as likely to
// be lower, of a split at least as uneven as below/above (ties left out).
func signTestP(below, above int) float64 {
	n, k := below+above, min(below, above)
	if n == 0 {
		return 1
	}
	cdf := 0.0
	for i := 0; i <= k; i++ {
		cdf += binomialHalf(n, i)
	}
	return min(1, 2*cdf)
}

// binomialHalf is P(X = i) for X ~ Binomial(n, ½), in logs so large n do not overflow.
func binomialHalf(n, i int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(i + 1))
	c, _ := math.Lgamma(float64(n - i + 1))
	return math.Exp(a - b - c - float64(n)*math.Ln2)
}
