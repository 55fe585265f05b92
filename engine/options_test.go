package engine

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func parse(t *testing.T, source, js string) Options {
	t.Helper()
	o, _, err := ParseOptions(source, []byte(js), []string{"omni"})
	if err != nil {
		t.Fatalf("ParseOptions(%s): %v", js, err)
	}
	return o
}

func TestDurationAcceptsStringsAndMilliseconds(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]time.Duration{
		`"30s"`: 30 * time.Second, `"1m30s"`: 90 * time.Second, `"1h"`: time.Hour,
		`"500ms"`: 500 * time.Millisecond, `1500`: 1500 * time.Millisecond, `"250"`: 250 * time.Millisecond,
		`0.5`: 500 * time.Microsecond,
	} {
		var d Duration
		if err := json.Unmarshal([]byte(in), &d); err != nil || d.D() != want {
			t.Errorf("%s: got %v, %v; want %v", in, d, err, want)
		}
	}
	var d Duration
	err := json.Unmarshal([]byte(`"3x"`), &d)
	if err == nil || !strings.Contains(err.Error(), `invalid duration "3x"`) {
		t.Errorf("bad duration error = %v", err)
	}
}

func TestParseOptionsKeepsModulesAndWarnsOnUnknownKeys(t *testing.T) {
	t.Parallel()
	o, warnings, err := ParseOptions("script options", []byte(`{
		"vus": 3, "duration": "10s", "omni": {"model": "m"}, "tresholds": {},
		"thresholds": {"ttft": ["p(99)<100"]}, "tags": {"env": "ci"},
		"summaryTrendStats": ["avg", "p(99)"], "setupTimeout": "5s", "noColor": true}`), []string{"omni"})
	if err != nil {
		t.Fatal(err)
	}
	if *o.VUs != 3 || o.Duration.D() != 10*time.Second || string(o.Modules["omni"]) != `{"model": "m"}` ||
		!strings.Contains(string(o.Thresholds), "p(99)<100") || o.Tags["env"] != "ci" || !*o.NoColor ||
		o.SetupTimeout.D() != 5*time.Second || len(o.SummaryTrendStats) != 2 {
		t.Errorf("decoded %+v", o)
	}
	if len(warnings) != 1 || warnings[0] != `script options: unknown option "tresholds" ignored` {
		t.Errorf("warnings = %q", warnings)
	}
}

func TestConsolidateShortcuts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, opts, executor string
		check                func(*ScenarioConfig) bool
	}{
		{"nothing: one iteration", `{}`, "shared-iterations", func(c *ScenarioConfig) bool { return *c.Iterations == 1 && *c.VUs == 1 }},
		{"vus+duration", `{"vus": 5, "duration": "1m"}`, "constant-vus", func(c *ScenarioConfig) bool { return *c.VUs == 5 && c.Duration.D() == time.Minute }},
		{"iterations", `{"vus": 2, "iterations": 10}`, "shared-iterations", func(c *ScenarioConfig) bool { return *c.Iterations == 10 && *c.VUs == 2 }},
		{"iterations+duration", `{"iterations": 10, "duration": "5s"}`, "shared-iterations", func(c *ScenarioConfig) bool { return c.MaxDuration.D() == 5*time.Second }},
		{"stages", `{"stages": [{"duration": "10s", "target": 5}]}`, "ramping-vus", func(c *ScenarioConfig) bool { return len(c.Stages) == 1 && *c.StartVUs == 1 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := Consolidate(nil, parse(t, "script options", tt.opts))
			if err != nil {
				t.Fatal(err)
			}
			c := o.Scenarios[DefaultScenario]
			if c == nil || c.Executor != tt.executor || !tt.check(c) {
				t.Errorf("default scenario = %+v", c)
			}
			if o.SetupTimeout.D() != DefaultSetupTimeout || o.TeardownTimeout.D() != DefaultTeardownTimeout {
				t.Errorf("defaults missing: %+v", o)
			}
		})
	}
}

func TestConsolidateLayering(t *testing.T) {
	t.Parallel()
	scenarios := `{"scenarios": {"chat": {"executor": "constant-vus", "vus": 2, "duration": "1s"}}, "tags": {"a": "script", "b": "script"}}`
	t.Run("higher shortcut replaces lower scenarios", func(t *testing.T) {
		flags := Options{Source: "flags", Duration: ptr(Duration(time.Second)), VUs: ptr(int64(3))}
		o, err := Consolidate(nil, parse(t, "script options", scenarios), flags)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := o.Scenarios["chat"]; ok || *o.Scenarios[DefaultScenario].VUs != 3 {
			t.Errorf("scenarios = %v", sortedKeys(o.Scenarios))
		}
	})
	t.Run("higher scenarios replace lower shortcuts", func(t *testing.T) {
		o, err := Consolidate(nil, parse(t, "config file", `{"vus": 9, "duration": "1h"}`), parse(t, "script options", scenarios))
		if err != nil {
			t.Fatal(err)
		}
		if len(o.Scenarios) != 1 || o.Scenarios["chat"] == nil || o.VUs != nil {
			t.Errorf("got %+v", o)
		}
	})
	t.Run("precedence and tag merge", func(t *testing.T) {
		env, err := OptionsFromEnv([]string{"OMNIK_SETUP_TIMEOUT=7s", "OMNIK_TEARDOWN_TIMEOUT=8s", "PATH=/bin"})
		if err != nil {
			t.Fatal(err)
		}
		flags := Options{Source: "flags", TeardownTimeout: ptr(Duration(9 * time.Second)), Tags: map[string]string{"b": "flag"}}
		o, err := Consolidate(nil, parse(t, "config file", `{"setupTimeout": "1s", "teardownTimeout": "1s", "summaryTimeUnit": "ms"}`),
			parse(t, "script options", scenarios), env, flags)
		if err != nil {
			t.Fatal(err)
		}
		if o.SetupTimeout.D() != 7*time.Second || o.TeardownTimeout.D() != 9*time.Second || *o.SummaryTimeUnit != "ms" {
			t.Errorf("timeouts %v %v", o.SetupTimeout, o.TeardownTimeout)
		}
		if o.Tags["a"] != "script" || o.Tags["b"] != "flag" {
			t.Errorf("tags = %v", o.Tags)
		}
	})
	t.Run("env stages replace script duration", func(t *testing.T) {
		env, err := OptionsFromEnv([]string{"OMNIK_STAGES=1s:3,1s:0"})
		if err != nil {
			t.Fatal(err)
		}
		o, err := Consolidate(nil, parse(t, "script options", `{"vus": 2, "duration": "1m"}`), env)
		if err != nil {
			t.Fatal(err)
		}
		c := o.Scenarios[DefaultScenario]
		if c.Executor != "ramping-vus" || *c.StartVUs != 2 || len(c.Stages) != 2 {
			t.Errorf("got %+v", c)
		}
	})
}

// Every validation error is one *OptionsError (exit 104) whose message names the
// problem and where it is.
func TestValidationErrors(t *testing.T) {
	t.Parallel()
	exported := func(name string) bool { return name == "default" || name == "chat" }
	sc := func(body string) string { return `{"scenarios": {"s": ` + body + `}}` }
	tests := []struct{ name, opts, want string }{
		{"not an object", `[1]`, `script options: options must be a JSON object`},
		{"negative vus", `{"vus": -1, "duration": "1s"}`, `option "vus" must not be negative, got -1`},
		{"fractional vus", `{"vus": 1.5}`, `script options: option "vus": expected a whole number, got number 1.5`},
		{"bad duration", `{"vus": 1, "duration": "ten"}`, `script options: option "duration": invalid duration "ten"`},
		{"zero duration", `{"duration": 0}`, `option "duration" must be positive, got 0s`},
		{"negative setupTimeout", `{"setupTimeout": "-1s"}`, `option "setupTimeout" must not be negative, got -1s`},
		{"bad summaryTimeUnit", `{"summaryTimeUnit": "days"}`, `option "summaryTimeUnit" must be one of ns, us, ms, s, m; got "days"`},
		{"shortcut with scenarios", `{"vus": 2, "scenarios": {"s": {"executor": "constant-vus", "duration": "1s"}}}`, `script options: "vus" and "scenarios" cannot be used together`},
		{"scenarios not an object", `{"scenarios": [1]}`, `option "scenarios" must be an object of named scenarios`},
		{"bad scenario name", `{"scenarios": {"a b": {"executor": "constant-vus", "duration": "1s"}}}`, `scenario name "a b": use letters, digits, _ and -`},
		{"missing executor", sc(`{"vus": 1}`), `scenario "s": "executor" is required; use one of constant-arrival-rate, constant-vus, per-vu-iterations, poisson-arrival-rate, ramping-arrival-rate, ramping-vus, shared-iterations`},
		{"unknown executor", sc(`{"executor": "externally-controlled"}`), `scenario "s": unknown executor "externally-controlled"`},
		{"key of another executor", sc(`{"executor": "constant-vus", "duration": "1s", "rate": 5}`), `scenario "s" (constant-vus): unknown key "rate"; valid keys are executor, startTime, gracefulStop, exec, env, tags, vus, duration`},
		{"bad key type", sc(`{"executor": "constant-vus", "vus": "many"}`), `scenario "s": key "vus": expected a whole number, got string`},
		{"constant-vus without duration", sc(`{"executor": "constant-vus", "vus": 1}`), `scenario "s" (constant-vus): "duration" is required`},
		{"zero vus", sc(`{"executor": "constant-vus", "vus": 0, "duration": "1s"}`), `scenario "s" (constant-vus): "vus" must be at least 1, got 0`},
		{"negative startTime", sc(`{"executor": "constant-vus", "duration": "1s", "startTime": "-1s"}`), `scenario "s" (constant-vus): "startTime" must not be negative, got -1s`},
		{"negative gracefulStop", sc(`{"executor": "per-vu-iterations", "gracefulStop": -5}`), `"gracefulStop" must not be negative, got -5ms`},
		{"zero maxDuration", sc(`{"executor": "shared-iterations", "maxDuration": "0s"}`), `scenario "s" (shared-iterations): "maxDuration" must be positive, got 0s`},
		{"no stages", sc(`{"executor": "ramping-vus", "stages": []}`), `scenario "s" (ramping-vus): "stages" must have at least one stage`},
		{"fractional VU target", sc(`{"executor": "ramping-vus", "stages": [{"duration": "1s", "target": 2.5}]}`), `stage 1: target must be a whole number of VUs, got 2.5`},
		{"negative stage duration", sc(`{"executor": "ramping-arrival-rate", "preAllocatedVUs": 1, "stages": [{"duration": "1s", "target": 2}, {"duration": "-1s", "target": 1}]}`), `stage 2: duration must not be negative, got -1s`},
		{"arrival without rate", sc(`{"executor": "constant-arrival-rate", "duration": "1s", "preAllocatedVUs": 1}`), `scenario "s" (constant-arrival-rate): "rate" is required`},
		{"arrival without preAllocatedVUs", sc(`{"executor": "constant-arrival-rate", "rate": 1, "duration": "1s"}`), `"preAllocatedVUs" is required`},
		{"maxVUs below preAllocated", sc(`{"executor": "constant-arrival-rate", "rate": 1, "duration": "1s", "preAllocatedVUs": 5, "maxVUs": 2}`), `"maxVUs" (2) must not be less than "preAllocatedVUs" (5)`},
		{"zero rate", sc(`{"executor": "constant-arrival-rate", "rate": 0, "duration": "1s", "preAllocatedVUs": 1}`), `"rate" must be positive`},
		{"infinite constant rate", sc(`{"executor": "constant-arrival-rate", "rate": "inf", "duration": "1s", "preAllocatedVUs": 1}`), `"rate" must be a non-negative number, got +Inf`},
		{"bad onSaturation", sc(`{"executor": "constant-arrival-rate", "rate": 1, "duration": "1s", "preAllocatedVUs": 1, "onSaturation": "wait"}`), `"onSaturation" must be "drop" or "queue", got "wait"`},
		{"poisson without maxVUs", sc(`{"executor": "poisson-arrival-rate", "rate": 1, "iterations": 5}`), `scenario "s" (poisson-arrival-rate): "maxVUs" is required`},
		{"poisson without end", sc(`{"executor": "poisson-arrival-rate", "rate": 1, "maxVUs": 2}`), `set "iterations", "duration" or both`},
		{"poisson inf with duration only", sc(`{"executor": "poisson-arrival-rate", "rate": "inf", "duration": "1s", "maxVUs": 2}`), `an infinite "rate" needs "iterations"`},
		{"poisson zero rate", sc(`{"executor": "poisson-arrival-rate", "rate": 0, "iterations": 5, "maxVUs": 2}`), `"rate" must be positive, or "inf" to start every iteration at once`},
		{"poisson bad burstiness", sc(`{"executor": "poisson-arrival-rate", "rate": 1, "iterations": 5, "maxVUs": 2, "burstiness": 0}`), `"burstiness" must be a positive number, got 0`},
		{"bad rate string", sc(`{"executor": "poisson-arrival-rate", "rate": "fast", "iterations": 5, "maxVUs": 2}`), `key "rate": invalid rate "fast": use a number or "inf"`},
		{"exec not exported", sc(`{"executor": "constant-vus", "duration": "1s", "exec": "speech"}`), `scenario "s": exec function "speech" is not exported by the script`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o, _, err := ParseOptions("script options", []byte(tt.opts), nil)
			if err == nil {
				_, err = Consolidate(exported, o)
			}
			var oe *OptionsError
			if !errors.As(err, &oe) || ExitCodeOf(err) != ExitInvalidConfig {
				t.Fatalf("error = %v (%T), want an *OptionsError", err, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q\nwant it to contain %q", err, tt.want)
			}
		})
	}
}

func TestLayerErrors(t *testing.T) {
	t.Parallel()
	script := parse(t, "script options", `{"scenarios": {"chat": {"executor": "constant-vus", "duration": "1s"}}}`)
	_, err := Consolidate(nil, script, Options{Source: "flags", VUs: ptr(int64(4))})
	if want := `flags: vus alone cannot change the scenarios of script options`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error = %v, want %q", err, want)
	}
	_, err = OptionsFromEnv([]string{"OMNIK_VUS=many"})
	if want := `environment: OMNIK_VUS="many": not a whole number`; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
	_, err = OptionsFromEnv([]string{"OMNIK_STAGES=30s"})
	if want := `stage "30s": use duration:target, like 30s:10`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error = %v, want %q", err, want)
	}
}

func TestPlanJSONAndPeakVUs(t *testing.T) {
	t.Parallel()
	o, err := Consolidate(nil, parse(t, "script options", `{"scenarios": {
		"warm": {"executor": "per-vu-iterations", "vus": 2, "iterations": 3, "gracefulStop": "0s", "maxDuration": "10s"},
		"load": {"executor": "constant-arrival-rate", "rate": 10, "duration": "20s", "preAllocatedVUs": 4, "maxVUs": 8, "startTime": "10s", "gracefulStop": "5s"},
		"ramp": {"executor": "ramping-vus", "startVUs": 0, "stages": [{"duration": "10s", "target": 3}], "startTime": "12s"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := NewPlan(o, FullSegment())
	if err != nil {
		t.Fatal(err)
	}
	if plan.PlannedVUs != 4 || plan.MaxVUs != 11 || plan.MaxDuration.D() != 52*time.Second {
		t.Errorf("planned %d, max %d, duration %s", plan.PlannedVUs, plan.MaxVUs, plan.MaxDuration)
	}
	if names := []string{plan.Scenarios[0].Name, plan.Scenarios[1].Name, plan.Scenarios[2].Name}; strings.Join(names, ",") != "warm,load,ramp" {
		t.Errorf("order %v", names)
	}
	if plan.Scenarios[1].Iterations != 200 || plan.Scenarios[0].Iterations != 6 {
		t.Errorf("iterations %d %d", plan.Scenarios[1].Iterations, plan.Scenarios[0].Iterations)
	}
	b, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"segment":"0:1"`, `"executor":"constant-arrival-rate"`, `"startTime":"10s"`, `"maxDuration":"52s"`, `"gracefulStop":"30s"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("plan JSON lacks %s:\n%s", want, b)
		}
	}
}

func TestOptionsJSONRoundTrip(t *testing.T) {
	t.Parallel()
	in := `{"duration":"1m0s","omni":{"model":"m"},"tags":{"a":"b"},"vus":2}`
	o := parse(t, "script options", in)
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != in {
		t.Errorf("got %s, want %s", b, in)
	}
}
