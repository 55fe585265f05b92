package js

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/dop251/goja"
	"github.com/omnik-dev/omnik/metrics"
)

// omnikModule is `import { check, group, sleep, fail, randomSeed, textSummary } from 'omnik'`.
func omnikModule(vu *VU) (*Exports, error) {
	return &Exports{Named: map[string]any{
		"check":       vu.check,
		"group":       vu.group,
		"sleep":       vu.sleep,
		"fail":        vu.fail,
		"randomSeed":  vu.randomSeed,
		"textSummary": vu.textSummary,
	}}, nil
}

// check records one `checks` sample per entry and returns whether all passed. A failed
// check never throws; an exception inside a predicate does.
func (vu *VU) check(c goja.FunctionCall) goja.Value {
	vu.RequireVUContext("check()")
	val := c.Argument(0)
	set, ok := c.Argument(1).(*goja.Object)
	if !ok {
		panic(vu.rt.NewTypeError("check(value, {name: fn}) needs an object of checks"))
	}
	tags := vu.Tags().Merge(vu.tagsArg(c.Argument(2)))
	all := true
	now := time.Now()
	for _, name := range set.Keys() {
		entry := set.Get(name)
		pass := entry.ToBoolean()
		if fn, ok := goja.AssertFunction(entry); ok {
			res, err := fn(goja.Undefined(), val)
			if err != nil {
				panic(err)
			}
			if _, isPromise := res.Export().(*goja.Promise); isPromise {
				panic(vu.rt.NewTypeError("check %q: async predicates are not supported; await the value first", name))
			}
			pass = res.ToBoolean()
		}
		v := 0.0
		if pass {
			v = 1
		} else {
			all = false
		}
		vu.Emit(metrics.Sample{Metric: vu.runner.cfg.builtin.Checks, Tags: tags.With("check", name),
			Time: now, Value: v, Metadata: vu.Metadata()})
	}
	return vu.rt.ToValue(all)
}

// sleep waits without freezing the loop: callbacks that come due meanwhile still run.
func (vu *VU) sleep(seconds float64) {
	vu.RequireVUContext("sleep()")
	deadline := time.Now().Add(time.Duration(seconds * float64(time.Second)))
	if err := vu.loop.pumpUntil(vu.ctx, deadline); err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			vu.rt.Interrupt(err)
			return
		}
		panic(err)
	}
}

func (vu *VU) fail(msg string) {
	panic(vu.rt.NewGoError(errors.New(msg)))
}

func (vu *VU) randomSeed(seed int64) {
	r := rand.New(rand.NewPCG(uint64(seed), uint64(seed)))
	vu.rt.SetRandSource(r.Float64)
}

// tagsArg reads an optional {key: value} argument as a tag set.
func (vu *VU) tagsArg(v goja.Value) *metrics.TagSet {
	o, ok := v.(*goja.Object)
	if !ok || isNullish(v) {
		return nil
	}
	m := map[string]string{}
	for _, k := range o.Keys() {
		m[k] = o.Get(k).String()
	}
	return metrics.NewTagSet(m)
}
