package js

import (
	"encoding/json"
	"time"

	"github.com/dop251/goja"
)

// executionModule is `import exec from 'omnik/execution'`: live, lazily read run state.
func executionModule(vu *VU) (*Exports, error) {
	rt := vu.rt
	named := map[string]any{
		"instance": rt.NewDynamicObject(&getters{vu: vu, get: vu.instanceField}),
		"scenario": rt.NewDynamicObject(&getters{vu: vu, get: vu.scenarioField}),
		"vu":       vu.vuObject(),
		"test":     vu.testObject(),
	}
	return &Exports{Named: named}, nil
}

// getters is a read-only object whose properties are computed on access.
type getters struct {
	vu   *VU
	get  func(key string) (any, bool)
	keys []string
}

func (g *getters) Get(key string) goja.Value {
	if v, ok := g.get(key); ok {
		return g.vu.rt.ToValue(v)
	}
	return nil
}
func (g *getters) Set(string, goja.Value) bool { return false }
func (g *getters) Has(key string) bool         { _, ok := g.get(key); return ok }
func (g *getters) Delete(string) bool          { return false }
func (g *getters) Keys() []string              { return g.keys }

func (vu *VU) instanceField(key string) (any, bool) {
	ctl := vu.runner.cfg.controller
	if ctl == nil {
		return nil, false
	}
	s := ctl.Stats()
	switch key {
	case "vusActive":
		return s.VUsActive, true
	case "vusInitialized":
		return s.VUsInitialized, true
	case "iterationsCompleted":
		return s.IterationsCompleted, true
	case "iterationsInterrupted":
		return s.IterationsInterrupted, true
	case "currentTestRunDuration":
		return float64(s.TestRunDuration) / float64(time.Millisecond), true
	}
	return nil, false
}

func (vu *VU) scenarioField(key string) (any, bool) {
	it := vu.Iteration()
	if it == nil || it.Scenario == nil {
		if key == "name" {
			panic(vu.rt.NewGoError(&ContextError{Call: "execution.scenario", Context: "VU (scenario function)"}))
		}
		return nil, false
	}
	s := it.Scenario
	switch key {
	case "name":
		return s.Name, true
	case "executor":
		return s.Executor, true
	case "startTime":
		return s.StartTime.UnixMilli(), true
	case "progress":
		if s.Progress == nil {
			return 0.0, true
		}
		return s.Progress(), true
	case "iterationInTest":
		return it.InTest, true
	case "iterationInInstance":
		return it.InInstance, true
	case "traceEntry":
		if it.TraceEntry == nil {
			return nil, false
		}
		if vu.state.traceEntry == nil {
			vu.state.traceEntry = vu.rt.ToValue(it.TraceEntry.Object())
		}
		return vu.state.traceEntry, true
	}
	return nil, false
}

func (vu *VU) vuObject() *goja.Object {
	o := vu.rt.NewDynamicObject(&getters{vu: vu, get: func(key string) (any, bool) {
		switch key {
		case "idInInstance":
			return vu.id, true
		case "idInTest":
			if f := vu.runner.cfg.idInTest; f != nil {
				return f(vu.id), true
			}
			return vu.id, true
		case "iterationInInstance":
			return vu.iterInVU, true
		case "iterationInScenario":
			if it := vu.Iteration(); it != nil {
				return vu.iterByScen[it.Scenario] - 1, true
			}
			return 0, true
		case "tags":
			return vu.rt.NewDynamicObject(&vuTags{vu: vu}), true
		case "metrics":
			return map[string]any{"tags": vu.rt.NewDynamicObject(&vuTags{vu: vu}), "metadata": vu.Metadata()}, true
		}
		return nil, false
	}})
	return o
}

// vuTags is execution.vu.tags: setting a key tags every later sample of the VU.
type vuTags struct{ vu *VU }

func (t *vuTags) Get(key string) goja.Value {
	if v, ok := t.vu.userTags[key]; ok {
		return t.vu.rt.ToValue(v)
	}
	if v, ok := t.vu.Tags().Get(key); ok {
		return t.vu.rt.ToValue(v)
	}
	return nil
}

func (t *vuTags) Set(key string, val goja.Value) bool {
	if _, isObj := val.(*goja.Object); isObj {
		panic(t.vu.rt.NewTypeError("vu.tags[%q]: tag values must be strings, numbers or booleans", key))
	}
	t.vu.userTags[key] = val.String()
	t.vu.tagsChanged = true
	return true
}

func (t *vuTags) Has(key string) bool { return t.Get(key) != nil }

func (t *vuTags) Delete(key string) bool {
	delete(t.vu.userTags, key)
	t.vu.tagsChanged = true
	return true
}

func (t *vuTags) Keys() []string {
	m := t.vu.Tags().Map()
	for k := range t.vu.userTags {
		m[k] = ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

func (vu *VU) testObject() *goja.Object {
	o := vu.rt.NewObject()
	_ = o.Set("abort", func(msg goja.Value) {
		reason := reasonOr(msg, "test.abort() called")
		if ctl := vu.runner.cfg.controller; ctl != nil {
			ctl.Abort(reason)
		}
		vu.rt.Interrupt(&AbortError{Reason: reason})
	})
	_ = o.Set("fail", func(msg goja.Value) {
		reason := reasonOr(msg, "test.fail() called")
		if ctl := vu.runner.cfg.controller; ctl != nil {
			ctl.Fail(reason)
		}
	})
	var opts any = map[string]any{}
	if len(vu.runner.cfg.options) > 0 {
		_ = json.Unmarshal(vu.runner.cfg.options, &opts)
	}
	_ = o.Set("options", frozen(vu.rt, opts))
	return o
}

func reasonOr(msg goja.Value, def string) string {
	if isNullish(msg) {
		return def
	}
	return msg.String()
}
