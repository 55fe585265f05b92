package sweep

import (
	"encoding/json"
	"fmt"
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

// target is the swept scenario, found in the consolidated options.
type target struct {
	name string
	// shortcut: the script has no scenarios, its top-level vus and duration make the
	// default one, and a step sets those.
	shortcut bool
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
	exec := opts.Scenarios[name].Executor
	if !slices.Contains(executors[spec.Knob], exec) {
		return target{}, fmt.Errorf("sweep: scenario %q is %s; a %s sweep needs %s", name, exec, spec.Knob, strings.Join(executors[spec.Knob], " or "))
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(script, &top); err != nil && len(script) > 0 {
		return target{}, fmt.Errorf("sweep: the script's options: %w", err)
	}
	_, scenarios := top["scenarios"]
	return target{name: name, shortcut: !scenarios}, nil
}

// stepOptions are the script's options with the swept scenario held at load for d: the
// knob's key, the duration, and none of the keys that would end it otherwise.
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
	var sc map[string]json.RawMessage
	if err := json.Unmarshal(top["scenarios"], &scenarios); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(scenarios[t.name], &sc); err != nil {
		return nil, err
	}
	var err error
	if scenarios[t.name], err = edit(sc, set, drop); err != nil {
		return nil, err
	}
	if top["scenarios"], err = json.Marshal(scenarios); err != nil {
		return nil, err
	}
	return json.Marshal(top)
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
