package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
)

// Options are a test's options as one layer gives them: defaults, a --config file, the
// script's `export const options`, OMNIK_* variables or CLI flags. A nil field is "not
// set in this layer", so layers merge field by field (see Consolidate).
type Options struct {
	// Source names the layer in error messages ("script options", "flags").
	Source string `json:"-"`

	VUs        *int64    `json:"vus,omitempty"`
	Duration   *Duration `json:"duration,omitempty"`
	Iterations *int64    `json:"iterations,omitempty"`
	Stages     []Stage   `json:"stages,omitempty"`

	Scenarios map[string]*ScenarioConfig `json:"scenarios,omitempty"`
	// Thresholds is kept raw: the metrics package parses it.
	Thresholds json.RawMessage   `json:"thresholds,omitempty"`
	Tags       map[string]string `json:"tags,omitempty"`

	SummaryTrendStats    []string  `json:"summaryTrendStats,omitempty"`
	SummaryTimeUnit      *string   `json:"summaryTimeUnit,omitempty"`
	SetupTimeout         *Duration `json:"setupTimeout,omitempty"`
	TeardownTimeout      *Duration `json:"teardownTimeout,omitempty"`
	MinIterationDuration *Duration `json:"minIterationDuration,omitempty"`
	NoColor              *bool     `json:"noColor,omitempty"`

	// Modules holds the raw options of modules (e.g. "omni"), by key; each module
	// decodes its own.
	Modules map[string]json.RawMessage `json:"-"`
}

// Stage is one step of a ramping executor: reach Target (VUs or iterations per
// timeUnit) linearly over Duration.
type Stage struct {
	Duration Duration `json:"duration"`
	Target   float64  `json:"target"`
}

// fields maps each JSON key to the field it decodes into. Decoding key by key lets an
// error name its key and lets unknown keys be warned about instead of failing.
func (o *Options) fields() map[string]any {
	return map[string]any{
		"vus": &o.VUs, "duration": &o.Duration, "iterations": &o.Iterations, "stages": &o.Stages,
		"thresholds": &o.Thresholds, "tags": &o.Tags,
		"summaryTrendStats": &o.SummaryTrendStats, "summaryTimeUnit": &o.SummaryTimeUnit,
		"setupTimeout": &o.SetupTimeout, "teardownTimeout": &o.TeardownTimeout,
		"minIterationDuration": &o.MinIterationDuration, "noColor": &o.NoColor,
	}
}

// ParseOptions decodes one layer of options from JSON. modules lists the option keys
// that belong to modules (kept raw in Modules). Unknown keys are returned as warnings;
// malformed values are an *OptionsError.
func ParseOptions(source string, data []byte, modules []string) (Options, []string, error) {
	o := Options{Source: source}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return o, nil, optionsErrorf("%s: options must be a JSON object: %v", source, err)
	}
	isModule := map[string]bool{}
	for _, m := range modules {
		isModule[m] = true
	}
	fields := o.fields()
	var warnings []string
	for _, key := range sortedKeys(raw) {
		val := raw[key]
		switch {
		case key == "scenarios":
			sc, err := parseScenarios(val)
			if err != nil {
				return o, nil, optionsErrorf("%s: %v", source, err)
			}
			o.Scenarios = sc
		case fields[key] != nil:
			if err := json.Unmarshal(val, fields[key]); err != nil {
				return o, nil, optionsErrorf("%s: option %q: %s", source, key, describeJSONError(err))
			}
		case isModule[key]:
			if o.Modules == nil {
				o.Modules = map[string]json.RawMessage{}
			}
			o.Modules[key] = val
		default:
			warnings = append(warnings, fmt.Sprintf("%s: unknown option %q ignored", source, key))
		}
	}
	return o, warnings, nil
}

func parseScenarios(val json.RawMessage) (map[string]*ScenarioConfig, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(val, &raw); err != nil {
		return nil, fmt.Errorf("option \"scenarios\" must be an object of named scenarios")
	}
	if raw == nil {
		return nil, nil
	}
	out := make(map[string]*ScenarioConfig, len(raw))
	for _, name := range sortedKeys(raw) {
		c := &ScenarioConfig{}
		if err := c.UnmarshalJSON(raw[name]); err != nil {
			return nil, fmt.Errorf("scenario %q: %w", name, err)
		}
		out[name] = c
	}
	return out, nil
}

// describeJSONError turns encoding/json's Go-typed messages into the user's vocabulary.
func describeJSONError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("expected %s, got %s", jsonTypeName(te.Type.String()), te.Value)
	}
	return err.Error()
}

func jsonTypeName(goType string) string {
	switch goType {
	case "int64":
		return "a whole number"
	case "float64":
		return "a number"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "map[string]string":
		return "an object of strings"
	case "[]string":
		return "an array of strings"
	}
	return goType
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// OptionsError is an invalid script option, config file entry, variable or flag. It
// maps to exit code 104.
type OptionsError struct{ Msg string }

func (e *OptionsError) Error() string { return e.Msg }

// ExitCode returns ExitInvalidConfig.
func (e *OptionsError) ExitCode() ExitCode { return ExitInvalidConfig }

func optionsErrorf(format string, args ...any) *OptionsError {
	return &OptionsError{Msg: fmt.Sprintf(format, args...)}
}

// MarshalJSON writes the options as a script would set them, module options included,
// for `omnik inspect`.
func (o Options) MarshalJSON() ([]byte, error) {
	type plain Options // without this method
	b, err := json.Marshal(plain(o))
	if err != nil || len(o.Modules) == 0 {
		return b, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, v := range o.Modules {
		m[k] = v
	}
	return json.Marshal(m)
}
