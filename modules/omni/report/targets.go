package report

import (
	"maps"
	"slices"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/record"
)

// targetOf is the target a request was sent to: its `target` tag, else record.DefaultTarget.
func targetOf(r *record.Record) string {
	if t := r.Tags["target"]; t != "" {
		return t
	}
	return record.DefaultTarget
}

// targets splits a run's requests by target for the A/B block. A run of one target, the
// usual run, keeps nothing more than its whole-run span: that is its target's until a
// second target's first request arrives, when the first target's span is forked from it.
type targets struct {
	first  string
	byName map[string]*span // nil while one target made requests
	pairs  pairing
}

func newTargets(budget int) targets { return targets{pairs: newPairing(budget)} }

// add folds r into its target's span; all is the whole run's span before r is added.
func (t *targets) add(r *record.Record, all *span, opts Options) {
	name := targetOf(r)
	t.pairs.add(r, name)
	switch {
	case t.first == "":
		t.first = name
		return
	case t.byName == nil && name == t.first:
		return
	case t.byName == nil:
		t.byName = map[string]*span{t.first: all.clone()}
	}
	sp := t.byName[name]
	if sp == nil {
		sp = newSpan(NewAccumulator(opts))
		t.byName[name] = sp
	}
	sp.add(r)
}

// baseline is the target the others are compared with: the default client's when it made
// requests, else the first by name, so the choice does not depend on which request
// finished first.
func (t *targets) baseline() string {
	if t.byName[record.DefaultTarget] != nil {
		return record.DefaultTarget
	}
	return slices.Min(slices.Collect(maps.Keys(t.byName)))
}

// order is the targets with the baseline first, then by name.
func (t *targets) order() []string {
	base := t.baseline()
	others := slices.DeleteFunc(slices.Sorted(maps.Keys(t.byName)), func(n string) bool { return n == base })
	return append([]string{base}, others...)
}

// targetResult is one target's aggregate.
type targetResult struct {
	name   string
	result *Result
}

// results aggregates each target over the run's span (start, started, end and floor as
// for the whole run), the baseline first; nil with fewer than two targets.
func (t *targets) results(start time.Duration, started bool, end, floor time.Duration) []targetResult {
	if t.byName == nil {
		return nil
	}
	var out []targetResult
	for _, name := range t.order() {
		sp := t.byName[name]
		out = append(out, targetResult{name, sp.acc.Result(sp.duration(start, started, end, floor))})
	}
	return out
}

func (sp *span) clone() *span { return &span{acc: sp.acc.clone(), first: sp.first, last: sp.last} }
