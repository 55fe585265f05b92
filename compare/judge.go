package compare

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/omnik-dev/omnik/engine"
)

// GateResult is a gate judged on a comparison.
type GateResult struct {
	Gate Gate
	Row  Row
	// Crossed is set when the gate holds, or finds no data.
	Crossed bool
	// NoData is set when a run lacks what the gate reads: NEW's value for an absolute
	// gate, both values for a change.
	NoData bool
	// Observed is what the gate compared, in the statistic's unit: NEW's value, the
	// change, or the relative change in percent (±Inf from a zero BASE).
	Observed float64
	// Limit is the gate's value in the statistic's unit, or in percent.
	Limit float64
}

// Judge evaluates gates on the comparison (all its rows, whatever Filter kept). A gate
// whose key neither run has, nor names a built-in metric or a known error kind, is a
// usage error (exit 104) naming the keys closest to it, as is a time unit on a
// statistic that is not a time.
func (c *Comparison) Judge(gates []Gate) ([]GateResult, error) {
	var out []GateResult
	var errs []error
	for _, g := range gates {
		r, err := c.judge(g)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, r)
	}
	if len(errs) > 0 {
		return nil, engine.Invalid(errors.Join(errs...))
	}
	return out, nil
}

func (c *Comparison) judge(g Gate) (GateResult, error) {
	row, ok := c.row(g.Key)
	if !ok {
		s, declared := declaredStat(g.Key)
		if !declared {
			return GateResult{}, fmt.Errorf("--fail-on %q: neither run has %s%s", g.Source, g.Key, c.suggest(g.Key))
		}
		// What neither run saw: a count of it is zero, anything else has no data.
		row = newRow(s, nil, nil)
	}
	r := GateResult{Gate: g, Row: row, Limit: g.Value}
	if g.TimeUnit != "" {
		switch row.Unit {
		case Milliseconds:
			r.Limit = g.Value * toMillis[g.TimeUnit]
		case Seconds:
			r.Limit = g.Value * toMillis[g.TimeUnit] / 1000
		default:
			return GateResult{}, fmt.Errorf("--fail-on %q: %s is not a time; write the value without %q", g.Source, g.Key, g.TimeUnit)
		}
	}
	abs, rel, both := row.Change()
	switch {
	case g.Mode == Absolute && row.New != nil:
		r.Observed = *row.New
	case g.Mode == Change && both:
		r.Observed = abs
	case g.Mode == Relative && both:
		r.Observed = rel
	default:
		r.NoData = true
	}
	r.Crossed = r.NoData || g.Op.Holds(r.Observed, r.Limit)
	return r, nil
}

// row finds the row of key; ok is false when neither run has it.
func (c *Comparison) row(key string) (Row, bool) {
	i := slices.IndexFunc(c.Rows, func(r Row) bool { return r.Key == key })
	if i < 0 {
		return Row{}, false
	}
	return c.Rows[i], true
}

// suggest names the keys closest to key, for a key neither run has.
func (c *Comparison) suggest(key string) string {
	type near struct {
		key  string
		dist int
	}
	var nearby []near
	limit := max(3, len(key)/3)
	for _, r := range c.Rows {
		if d := editDistance(key, r.Key); d <= limit {
			nearby = append(nearby, near{r.Key, d})
		}
	}
	if len(nearby) == 0 {
		return " (omnik compare prints every key in its table)"
	}
	slices.SortStableFunc(nearby, func(a, b near) int { return a.dist - b.dist })
	names := []string{}
	for _, n := range nearby[:min(3, len(nearby))] {
		names = append(names, n.key)
	}
	return " (did you mean " + strings.Join(names, ", ") + "?)"
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
