package engine

import (
	"maps"
	"regexp"
	"time"
)

// Defaults for options no layer sets.
const (
	DefaultSetupTimeout    = 60 * time.Second
	DefaultTeardownTimeout = 60 * time.Second
	DefaultGracefulStop    = 30 * time.Second
	DefaultMaxDuration     = 10 * time.Minute
)

// DefaultSummaryTrendStats are the Trend columns of the summary.
var DefaultSummaryTrendStats = []string{"avg", "min", "med", "max", "p(90)", "p(95)", "p(99)"}

// DefaultScenario is the name of the scenario the shortcuts (vus, duration, iterations,
// stages) build.
const DefaultScenario = "default"

// Consolidate merges layers, lowest precedence first (config file, script options,
// environment, flags), over the defaults, turns shortcuts into the "default" scenario
// and validates the result. exported reports whether the script exports a function; nil
// skips that check. A returned error is an *OptionsError.
//
// Layering rules: a field set in a higher layer replaces the lower one (tags and module
// options merge by key). A layer that sets duration, iterations or stages replaces the
// scenarios and the other shortcuts of lower layers; a layer that sets scenarios replaces
// lower shortcuts. A layer may not set both a shortcut and scenarios.
func Consolidate(exported func(name string) bool, layers ...Options) (Options, error) {
	out := Options{
		Source:            "defaults",
		SetupTimeout:      ptr(Duration(DefaultSetupTimeout)),
		TeardownTimeout:   ptr(Duration(DefaultTeardownTimeout)),
		SummaryTrendStats: DefaultSummaryTrendStats,
	}
	scenariosFrom := ""
	for _, l := range layers {
		if err := checkLayer(l); err != nil {
			return Options{}, err
		}
		switch {
		case l.Scenarios != nil:
			out.VUs, out.Duration, out.Iterations, out.Stages = nil, nil, nil, nil
			out.Scenarios, scenariosFrom = l.Scenarios, l.Source
		case l.Duration != nil || l.Iterations != nil || l.Stages != nil:
			out.Scenarios, scenariosFrom = nil, ""
			out.Duration, out.Iterations, out.Stages = l.Duration, l.Iterations, l.Stages
		case l.VUs != nil && out.Scenarios != nil:
			return Options{}, optionsErrorf("%s: vus alone cannot change the scenarios of %s; also set duration, iterations or stages to replace them", l.Source, scenariosFrom)
		}
		mergeInto(&out, l)
	}
	out.Source = "consolidated"
	if err := checkValues(out); err != nil {
		return Options{}, err
	}
	if out.Scenarios == nil {
		out.Scenarios = map[string]*ScenarioConfig{DefaultScenario: shortcutScenario(out)}
	}
	if _, err := NewPlan(out, FullSegment()); err != nil {
		return Options{}, err
	}
	for _, name := range sortedKeys(out.Scenarios) {
		exec := execName(out.Scenarios[name])
		if exported != nil && !exported(exec) {
			return Options{}, optionsErrorf("scenario %q: exec function %q is not exported by the script", name, exec)
		}
	}
	return out, nil
}

// mergeInto copies every non-shortcut field l sets (and vus) into out.
func mergeInto(out *Options, l Options) {
	set(&out.VUs, l.VUs)
	set(&out.SummaryTimeUnit, l.SummaryTimeUnit)
	set(&out.SetupTimeout, l.SetupTimeout)
	set(&out.TeardownTimeout, l.TeardownTimeout)
	set(&out.MinIterationDuration, l.MinIterationDuration)
	set(&out.NoColor, l.NoColor)
	if l.Thresholds != nil {
		out.Thresholds = l.Thresholds
	}
	if l.SummaryTrendStats != nil {
		out.SummaryTrendStats = l.SummaryTrendStats
	}
	out.Tags = mergeMaps(out.Tags, l.Tags)
	out.Modules = mergeMaps(out.Modules, l.Modules)
}

func set[T any](dst **T, src *T) {
	if src != nil {
		*dst = src
	}
}

func mergeMaps[V any](dst, src map[string]V) map[string]V {
	if len(src) == 0 {
		return dst
	}
	out := maps.Clone(dst)
	if out == nil {
		out = make(map[string]V, len(src))
	}
	maps.Copy(out, src)
	return out
}

func ptr[T any](v T) *T { return &v }

func checkLayer(l Options) error {
	if l.Scenarios == nil {
		return nil
	}
	shortcuts := []struct {
		key string
		set bool
	}{{"vus", l.VUs != nil}, {"duration", l.Duration != nil}, {"iterations", l.Iterations != nil}, {"stages", l.Stages != nil}}
	for _, s := range shortcuts {
		if s.set {
			return optionsErrorf("%s: %q and \"scenarios\" cannot be used together; move %q into a scenario", l.Source, s.key, s.key)
		}
	}
	return nil
}

var scenarioNameRe = regexp.MustCompile(`^[0-9A-Za-z_-]+$`)

// checkValues validates the top-level values that no executor checks.
func checkValues(o Options) error {
	if o.VUs != nil && *o.VUs < 0 {
		return optionsErrorf("option \"vus\" must not be negative, got %d", *o.VUs)
	}
	if o.Iterations != nil && *o.Iterations < 0 {
		return optionsErrorf("option \"iterations\" must not be negative, got %d", *o.Iterations)
	}
	if o.Duration != nil && *o.Duration <= 0 && o.Iterations == nil {
		return optionsErrorf("option \"duration\" must be positive, got %s", *o.Duration)
	}
	durations := []struct {
		key string
		d   *Duration
	}{{"setupTimeout", o.SetupTimeout}, {"teardownTimeout", o.TeardownTimeout}, {"minIterationDuration", o.MinIterationDuration}}
	for _, d := range durations {
		if d.d != nil && *d.d < 0 {
			return optionsErrorf("option %q must not be negative, got %s", d.key, *d.d)
		}
	}
	if u := o.SummaryTimeUnit; u != nil && *u != "" && !map[string]bool{"ns": true, "us": true, "µs": true, "ms": true, "s": true, "m": true}[*u] {
		return optionsErrorf("option \"summaryTimeUnit\" must be one of ns, us, ms, s, m; got %q", *u)
	}
	for _, name := range sortedKeys(o.Scenarios) {
		if !scenarioNameRe.MatchString(name) {
			return optionsErrorf("scenario name %q: use letters, digits, _ and -", name)
		}
	}
	return nil
}

// shortcutScenario builds the "default" scenario from vus, duration, iterations and
// stages: iterations → shared-iterations (duration becomes its maxDuration), stages →
// ramping-vus, duration → constant-vus, nothing → one iteration on one VU.
func shortcutScenario(o Options) *ScenarioConfig {
	vus := o.VUs
	if vus == nil {
		vus = ptr(int64(1))
	}
	switch {
	case o.Iterations != nil:
		return &ScenarioConfig{Executor: "shared-iterations", VUs: vus, Iterations: o.Iterations, MaxDuration: o.Duration}
	case o.Stages != nil:
		return &ScenarioConfig{Executor: "ramping-vus", StartVUs: vus, Stages: o.Stages}
	case o.Duration != nil:
		return &ScenarioConfig{Executor: "constant-vus", VUs: vus, Duration: o.Duration}
	}
	return &ScenarioConfig{Executor: "shared-iterations", VUs: vus, Iterations: ptr(int64(1))}
}

func execName(c *ScenarioConfig) string {
	if c.Exec == "" {
		return "default"
	}
	return c.Exec
}
