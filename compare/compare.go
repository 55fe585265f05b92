package compare

import (
	"math"
	"slices"
	"strings"
)

// Comparison is two runs side by side.
type Comparison struct {
	Base, New *Input
	// Rows are every statistic either run has, in the table's order.
	Rows []Row
	// Warnings say why the runs may not compare; they never change the exit code.
	Warnings []Warning
}

// Row is one statistic of both runs.
type Row struct {
	Key    string
	Group  Group
	Unit   Unit
	Better Better
	// Base and New are nil when that run has no such statistic.
	Base, New *float64
	// ErrorBound is the larger relative error of the two values (Stat.ErrorBound).
	ErrorBound float64
}

// Compare sets base (BASE) and next (NEW) side by side. A count one run lacks is zero
// there (a counter of nothing, no failure of that kind); any other statistic one run
// lacks is absent from its side.
func Compare(base, next *Input) *Comparison {
	c := &Comparison{Base: base, New: next, Warnings: warnings(base, next)}
	var stats []Stat
	for _, k := range union(base.Stats, next.Stats) {
		s, ok := base.Stats[k]
		if !ok {
			s = next.Stats[k]
		}
		stats = append(stats, s)
	}
	slices.SortFunc(stats, Stat.compare)
	for _, s := range stats {
		c.Rows = append(c.Rows, newRow(s, base.Stats, next.Stats))
	}
	return c
}

// newRow is s's row, its values read from each run's stats.
func newRow(s Stat, base, next map[string]Stat) Row {
	r := Row{Key: s.Key, Group: s.Group, Unit: s.Unit, Better: s.Better}
	value := func(stats map[string]Stat) *float64 {
		if st, ok := stats[s.Key]; ok {
			r.ErrorBound = max(r.ErrorBound, st.ErrorBound)
			return &st.Value
		}
		if s.zeroIfAbsent {
			return new(float64)
		}
		return nil
	}
	r.Base, r.New = value(base), value(next)
	return r
}

// Change is NEW−BASE and the relative change in percent of |BASE|; from a zero BASE any
// increase is +Inf% and any decrease −Inf%. ok is false when a run lacks the statistic.
func (r Row) Change() (abs, rel float64, ok bool) {
	if r.Base == nil || r.New == nil {
		return 0, 0, false
	}
	b, n := *r.Base, *r.New
	abs = n - b
	switch {
	case abs == 0:
		rel = 0
	case b == 0:
		rel = math.Inf(int(math.Copysign(1, abs)))
	default:
		rel = abs / math.Abs(b) * 100
	}
	return abs, rel, true
}

// Verdict is what a row's change means.
type Verdict int

// The verdicts.
const (
	Unchanged Verdict = iota // equal, or a run lacks the statistic
	Changed                  // a neutral statistic changed
	Improved
	Regressed
)

func (v Verdict) String() string {
	return [...]string{"unchanged", "changed", "improved", "regressed"}[v]
}

// MarshalText writes the verdict by name in JSON.
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// Verdict says whether the change is an improvement, a regression, or neither.
func (r Row) Verdict() Verdict {
	abs, _, ok := r.Change()
	switch {
	case !ok || abs == 0:
		return Unchanged
	case r.Better == Neutral:
		return Changed
	case (abs < 0) == (r.Better == Lower):
		return Improved
	}
	return Regressed
}

// Filter keeps the rows whose key contains one of patterns; none keeps every row.
func (c *Comparison) Filter(patterns []string) *Comparison {
	if len(patterns) == 0 {
		return c
	}
	out := *c
	out.Rows = slices.DeleteFunc(slices.Clone(c.Rows), func(r Row) bool {
		return !slices.ContainsFunc(patterns, func(p string) bool { return strings.Contains(r.Key, p) })
	})
	return &out
}
