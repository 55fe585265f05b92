package sweep

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/omnik-dev/omnik/engine"
)

// executors are the executors each knob can vary: loads held for a duration.
var executors = map[Knob][]string{
	Rate: {"constant-arrival-rate", "poisson-arrival-rate"},
	VUs:  {"constant-vus"},
}

// target is the swept scenario, found in the consolidated options, and the others that
// run beside it.
type target struct {
	name string
	// shortcut: the script has no scenarios, its top-level vus and duration make the
	// default one, and a step sets those.
	shortcut bool
	// startTime is the swept scenario's: its warm-up begins there.
	startTime time.Duration
	// others are the other scenarios, each capped to the step's length.
	others map[string]*engine.ScenarioConfig
}

// findTarget picks the scenario to sweep and checks that the knob applies to it.
func findTarget(opts engine.Options, script json.RawMessage, spec Spec) (target, error) {
	names := make([]string, 0, len(opts.Scenarios))
	for name := range opts.Scenarios {
		names = append(names, name)
	}
	slices.Sort(names)
	name := spec.Scenario
	switch {
	case name == "" && len(names) == 1:
		name = names[0]
	case name == "":
		return target{}, fmt.Errorf("sweep: the script has %d scenarios (%s): name the one to sweep with --scenario or options.sweep.scenario", len(names), strings.Join(names, ", "))
	case opts.Scenarios[name] == nil:
		return target{}, fmt.Errorf("sweep: no scenario %q (the script has %s)", name, strings.Join(names, ", "))
	}
	sc := opts.Scenarios[name]
	if !slices.Contains(executors[spec.Knob], sc.Executor) {
		return target{}, fmt.Errorf("sweep: scenario %q is %s; a %s sweep needs %s", name, sc.Executor, spec.Knob, strings.Join(executors[spec.Knob], " or "))
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(script, &top); err != nil && len(script) > 0 {
		return target{}, fmt.Errorf("sweep: the script's options: %w", err)
	}
	raw, scenarios := top["scenarios"]
	if scenarios {
		var written map[string]json.RawMessage
		if err := json.Unmarshal(raw, &written); err != nil || written[name] == nil {
			return target{}, fmt.Errorf("sweep: scenario %q is not one the script writes: an option layer above the script's made the scenarios (%s)", name, layerHint)
		}
	}
	t := target{name: name, shortcut: !scenarios, others: map[string]*engine.ScenarioConfig{}}
	if sc.StartTime != nil {
		t.startTime = sc.StartTime.D()
	}
	for _, other := range names {
		if other != name {
			t.others[other] = opts.Scenarios[other]
		}
	}
	return t, t.checkOthers(spec.Warmup + spec.Duration)
}

// checkOthers refuses the other scenarios a step cannot cap to its length: a step lasts
// as long as its longest scenario, and a background that outlasts the swept load would
// be measured without it.
func (t target) checkOthers(length time.Duration) error {
	for _, name := range slices.Sorted(maps.Keys(t.others)) {
		sc := t.others[name]
		start := time.Duration(0)
		if sc.StartTime != nil {
			start = sc.StartTime.D()
		}
		switch {
		case start >= t.startTime+length:
			return fmt.Errorf("sweep: scenario %q starts at %s, after a step of the swept scenario ends (%s): it would run alone", name, start, t.startTime+length)
		case sc.Executor == "trace-replay":
			return fmt.Errorf("sweep: scenario %q replays a trace, whose length a step cannot cap: sweep it alone", name)
		case len(sc.Stages) > 0:
			var total time.Duration
			for _, st := range sc.Stages {
				total += st.Duration.D()
			}
			if start+total > t.startTime+length {
				return fmt.Errorf("sweep: scenario %q's stages last %s, past a step's %s: shorten them or sweep it alone", name, start+total, t.startTime+length)
			}
		}
	}
	return nil
}

// stepOptions are the script's options with the swept scenario held at load for d
// (its knob's key, its duration, none of the keys that would end it otherwise), and
// every other scenario ending when it ends.
func (t target) stepOptions(script json.RawMessage, knob Knob, load float64, d time.Duration) (json.RawMessage, error) {
	top := map[string]json.RawMessage{}
	if len(script) > 0 {
		if err := json.Unmarshal(script, &top); err != nil {
			return nil, err
		}
	}
	set := map[string]any{"duration": d.String()}
	drop := []string{"iterations", "maxDuration", "stages"}
	if knob == Rate {
		set["rate"], set["timeUnit"] = load, "1s"
	} else {
		set["vus"] = int64(load)
	}
	if t.shortcut {
		return edit(top, set, drop)
	}
	var scenarios map[string]json.RawMessage
	if err := json.Unmarshal(top["scenarios"], &scenarios); err != nil {
		return nil, err
	}
	var err error
	if scenarios[t.name], err = editRaw(scenarios[t.name], set, drop); err != nil {
		return nil, err
	}
	for name, sc := range t.others {
		if scenarios[name], err = editRaw(scenarios[name], t.endWith(sc, d), nil); err != nil {
			return nil, err
		}
	}
	if top["scenarios"], err = json.Marshal(scenarios); err != nil {
		return nil, err
	}
	return json.Marshal(top)
}

// endWith is what bounds another scenario to end with the swept one, a step of length d
// after the swept one's start: its duration, or for iterations its maxDuration.
func (t target) endWith(sc *engine.ScenarioConfig, d time.Duration) map[string]any {
	start := time.Duration(0)
	if sc.StartTime != nil {
		start = sc.StartTime.D()
	}
	left := t.startTime + d - start
	switch {
	case sc.Duration != nil:
		return map[string]any{"duration": min(sc.Duration.D(), left).String()}
	case sc.Executor == "shared-iterations" || sc.Executor == "per-vu-iterations" || sc.Executor == "poisson-arrival-rate":
		if sc.MaxDuration != nil {
			left = min(left, sc.MaxDuration.D())
		}
		return map[string]any{"maxDuration": left.String()}
	}
	return nil // stages, checked to fit by checkOthers
}

func editRaw(raw json.RawMessage, set map[string]any, drop []string) (json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, err
	}
	return edit(obj, set, drop)
}

// edit sets and drops keys of an object.
func edit(obj map[string]json.RawMessage, set map[string]any, drop []string) (json.RawMessage, error) {
	if obj == nil {
		obj = map[string]json.RawMessage{}
	}
	for _, k := range drop {
		delete(obj, k)
	}
	for k, v := range set {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		obj[k] = b
	}
	return json.Marshal(obj)
}

// layerHint names the option layer above the script's that sets a load.
const layerHint = "unset OMNIK_VUS, OMNIK_DURATION, OMNIK_ITERATIONS, OMNIK_STAGES"

// checkStep reports a step whose consolidated options do not hold the load it set: a
// layer above the script's (an OMNIK_VUS, OMNIK_DURATION … variable) replaced it.
func (t target) checkStep(opts engine.Options, knob Knob, load float64, d time.Duration) error {
	sc := opts.Scenarios[t.name]
	if sc == nil {
		return fmt.Errorf("sweep: the step has no scenario %q: an option layer above the script's replaced the scenarios (%s)", t.name, layerHint)
	}
	var got string
	switch {
	case sc.Duration == nil || sc.Duration.D() != d:
		got = fmt.Sprintf("duration %s, want %s", orNone(sc.Duration), d)
	case knob == Rate && (sc.Rate == nil || float64(*sc.Rate) != load || sc.TimeUnit == nil || sc.TimeUnit.D() != time.Second):
		got = fmt.Sprintf("rate %s per %s, want %v per 1s", orNone(sc.Rate), orNone(sc.TimeUnit), load)
	case knob == VUs && (sc.VUs == nil || float64(*sc.VUs) != load):
		got = fmt.Sprintf("vus %s, want %v", orNone(sc.VUs), load)
	}
	if got != "" {
		return fmt.Errorf("sweep: scenario %q has %s: an option layer above the script's set it (%s)", t.name, got, layerHint)
	}
	return nil
}

// orNone writes an option's value, "none" when unset.
func orNone[T any](v *T) string {
	if v == nil {
		return "none"
	}
	return fmt.Sprint(*v)
}
