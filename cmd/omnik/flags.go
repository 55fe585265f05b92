package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/omnik-dev/omnik/engine"
	"github.com/spf13/pflag"
)

// testFlags are the flags `run` and `inspect` share: they become the CLI options layer.
type testFlags struct {
	vus        int64
	duration   string
	iterations int64
	stages     []string
	env        []string
	tags       []string
	config     string
	thresholds []string
	noColor    bool
}

func (f *testFlags) register(fs *pflag.FlagSet) {
	fs.Int64VarP(&f.vus, "vus", "u", 0, "number of VUs (with --duration: a constant-vus scenario)")
	fs.StringVarP(&f.duration, "duration", "d", "", "test duration, e.g. 30s, 5m")
	fs.Int64VarP(&f.iterations, "iterations", "i", 0, "total iterations shared by the VUs")
	fs.StringArrayVarP(&f.stages, "stage", "s", nil, "ramping stage DURATION:TARGET (repeatable)")
	fs.StringArrayVarP(&f.env, "env", "e", nil, "set __ENV.KEY=VALUE (repeatable)")
	fs.StringArrayVar(&f.tags, "tag", nil, "add a tag NAME=VALUE to every sample (repeatable)")
	fs.StringVarP(&f.config, "config", "c", "", "JSON file with options (lowest precedence after defaults)")
	fs.StringArrayVar(&f.thresholds, "threshold", nil, "threshold EXPR like 'ttfc.p99 < 900' (repeatable; exit 99 when one fails)")
	fs.BoolVar(&f.noColor, "no-color", false, "no colours (NO_COLOR is respected too)")
}

// cliLayer turns the flags that were set into an options layer.
func (f *testFlags) cliLayer(fs *pflag.FlagSet, modules []string) (engine.Options, error) {
	m := map[string]any{}
	if fs.Changed("vus") {
		m["vus"] = f.vus
	}
	if fs.Changed("duration") {
		m["duration"] = f.duration
	}
	if fs.Changed("iterations") {
		m["iterations"] = f.iterations
	}
	if len(f.stages) > 0 {
		st, err := parseStages(f.stages)
		if err != nil {
			return engine.Options{}, err
		}
		m["stages"] = st
	}
	if len(f.tags) > 0 {
		tags, err := keyValues("--tag", f.tags)
		if err != nil {
			return engine.Options{}, err
		}
		m["tags"] = tags
	}
	if fs.Changed("no-color") {
		m["noColor"] = f.noColor
	}
	return layerFromMap("command-line flags", m, modules)
}

// envLayer reads OMNIK_* variables.
func envLayer(modules []string) (engine.Options, error) {
	m := map[string]any{}
	for env, key := range map[string]string{
		"OMNIK_VUS": "vus", "OMNIK_ITERATIONS": "iterations",
	} {
		if v, ok := os.LookupEnv(env); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return engine.Options{}, &engine.OptionsError{Msg: fmt.Sprintf("%s=%q: expected a whole number", env, v)}
			}
			m[key] = n
		}
	}
	for env, key := range map[string]string{
		"OMNIK_DURATION": "duration", "OMNIK_SUMMARY_TIME_UNIT": "summaryTimeUnit",
		"OMNIK_SETUP_TIMEOUT": "setupTimeout", "OMNIK_TEARDOWN_TIMEOUT": "teardownTimeout",
	} {
		if v, ok := os.LookupEnv(env); ok {
			m[key] = v
		}
	}
	if v, ok := os.LookupEnv("OMNIK_STAGES"); ok {
		st, err := parseStages(strings.Split(v, ","))
		if err != nil {
			return engine.Options{}, fmt.Errorf("OMNIK_STAGES: %w", err)
		}
		m["stages"] = st
	}
	if v, ok := os.LookupEnv("OMNIK_SUMMARY_TREND_STATS"); ok {
		m["summaryTrendStats"] = strings.Split(v, ",")
	}
	if _, ok := os.LookupEnv("OMNIK_NO_COLOR"); ok {
		m["noColor"] = true
	}
	return layerFromMap("environment", m, modules)
}

// layerFromMap goes through the same JSON decoding and validation as script options,
// so every layer reports bad values the same way.
func layerFromMap(source string, m map[string]any, modules []string) (engine.Options, error) {
	raw, err := json.Marshal(m)
	if err != nil {
		return engine.Options{}, err
	}
	o, _, err := engine.ParseOptions(source, raw, modules)
	return o, err
}

// parseStages reads DURATION:TARGET pairs.
func parseStages(specs []string) ([]map[string]any, error) {
	out := make([]map[string]any, 0, len(specs))
	for _, s := range specs {
		d, target, ok := strings.Cut(strings.TrimSpace(s), ":")
		n, err := strconv.ParseFloat(target, 64)
		if !ok || err != nil {
			return nil, &engine.OptionsError{Msg: fmt.Sprintf("stage %q: expected DURATION:TARGET, e.g. 30s:10", s)}
		}
		out = append(out, map[string]any{"duration": d, "target": n})
	}
	return out, nil
}

// keyValues reads KEY=VALUE pairs.
func keyValues(flag string, pairs []string) (map[string]string, error) {
	m := make(map[string]string, len(pairs))
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, &engine.OptionsError{Msg: fmt.Sprintf("%s %q: expected KEY=VALUE", flag, p)}
		}
		m[k] = v
	}
	return m, nil
}

// scriptEnv is __ENV: the process environment plus -e pairs.
func scriptEnv(pairs []string) (map[string]string, error) {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	extra, err := keyValues("-e", pairs)
	if err != nil {
		return nil, err
	}
	for k, v := range extra {
		env[k] = v
	}
	return env, nil
}
