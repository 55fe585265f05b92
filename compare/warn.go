package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/omnik-dev/omnik/testrun"
)

// Warning is a reason two runs may not compare.
type Warning struct {
	// Info marks what is worth knowing but does not make the numbers differ (which
	// omnik measured).
	Info bool   `json:"info,omitempty"`
	Text string `json:"text"`
}

// warnings compares what the runs were: script, load, model, target kind, omnik, and
// how exact their percentiles are.
func warnings(base, next *Input) []Warning {
	var w []Warning
	add := func(info bool, format string, args ...any) {
		w = append(w, Warning{Info: info, Text: fmt.Sprintf(format, args...)})
	}
	sides := []struct {
		name string
		in   *Input
	}{{"BASE", base}, {"NEW", next}}
	described := true
	for _, s := range sides {
		if s.in.Run == nil || s.in.Run.Env == nil {
			add(false, "%s does not say which script and load it ran (an older omnik wrote it): they are not compared", s.name)
			described = false
		}
	}
	if described {
		a, b := base.Run, next.Run
		if d := scriptDiff(a, b); d != "" {
			add(false, "script differs: %s", d)
		}
		if d := loadDiff(a.Env.Scenarios, b.Env.Scenarios); d != "" {
			add(false, "load differs: %s", d)
		} else if a.OptionsSHA256 != b.OptionsSHA256 {
			add(false, "options differ (options_sha256 %.12s → %.12s): thresholds, tags or other options; the scenarios' load is the same",
				a.OptionsSHA256, b.OptionsSHA256)
		}
		if a.Env.Simulated != b.Env.Simulated {
			add(false, "BASE ran against %s, NEW against %s", target(a.Env), target(b.Env))
		}
		if a.Env.Omnik != b.Env.Omnik {
			add(true, "omnik versions differ: %s → %s", a.Env.Omnik, b.Env.Omnik)
		}
	}
	if ma, mb := base.model(), next.model(); ma != mb {
		add(false, "model differs: %s → %s", modelName(ma), modelName(mb))
	}
	approx := func(whose string, names []string, bound float64) {
		if bound > 0 {
			add(false, "%s medians and percentiles of %s are approximate (HDR histograms, relative error ≤ %.3g%%): smaller changes are noise",
				whose, list(names), bound*100)
		}
	}
	na, ba := approximate(base)
	nb, bb := approximate(next)
	if ba == bb && slices.Equal(na, nb) {
		approx("both runs'", na, ba)
	} else {
		approx("BASE's", na, ba)
		approx("NEW's", nb, bb)
	}
	return w
}

// scriptDiff names the scripts when they differ: by content when both runs hashed it,
// by file name when not.
func scriptDiff(a, b *testrun.RunAbout) string {
	na, nb := filepath.Base(a.Script), filepath.Base(b.Script)
	switch {
	case a.ScriptSHA256 != "" && b.ScriptSHA256 != "":
		if a.ScriptSHA256 != b.ScriptSHA256 {
			return fmt.Sprintf("%s (sha256 %.12s) → %s (sha256 %.12s)", na, a.ScriptSHA256, nb, b.ScriptSHA256)
		}
	case na != nb:
		return na + " → " + nb
	}
	return ""
}

// loadDiff names what differs between two runs' scenarios: one only one run has, an
// executor, a setting of the executor.
func loadDiff(a, b []testrun.ScenarioEnv) string {
	byName := func(list []testrun.ScenarioEnv) map[string]testrun.ScenarioEnv {
		m := map[string]testrun.ScenarioEnv{}
		for _, s := range list {
			m[s.Name] = s
		}
		return m
	}
	ma, mb := byName(a), byName(b)
	var parts []string
	for _, n := range union(ma, mb) {
		x, inA := ma[n]
		y, inB := mb[n]
		switch {
		case !inB:
			parts = append(parts, fmt.Sprintf("scenario %s only in BASE", n))
		case !inA:
			parts = append(parts, fmt.Sprintf("scenario %s only in NEW", n))
		case x.Executor != y.Executor:
			parts = append(parts, fmt.Sprintf("scenario %s: %s → %s", n, x.Executor, y.Executor))
		default:
			if d := settingsDiff(x, y); d != "" {
				parts = append(parts, fmt.Sprintf("scenario %s: %s %s", n, x.Executor, d))
			}
		}
	}
	return strings.Join(parts, "; ")
}

// settingsDiff lists the executor settings that differ ("rate 4 → 8"); tags are not
// load. Without settings, the VU counts stand for them.
func settingsDiff(a, b testrun.ScenarioEnv) string {
	var ca, cb map[string]json.RawMessage
	_ = json.Unmarshal(a.Config, &ca)
	_ = json.Unmarshal(b.Config, &cb)
	if len(ca) == 0 && len(cb) == 0 {
		ca = map[string]json.RawMessage{"vus": fmt.Appendf(nil, "%d", a.VUs), "max_vus": fmt.Appendf(nil, "%d", a.MaxVUs)}
		cb = map[string]json.RawMessage{"vus": fmt.Appendf(nil, "%d", b.VUs), "max_vus": fmt.Appendf(nil, "%d", b.MaxVUs)}
	}
	var parts []string
	for _, k := range union(ca, cb) {
		va, vb := setting(ca[k]), setting(cb[k])
		if k != "tags" && k != "executor" && va != vb {
			parts = append(parts, fmt.Sprintf("%s %s → %s", k, va, vb))
		}
	}
	return strings.Join(parts, ", ")
}

// setting is a setting's value as a user writes it: compact JSON, strings bare, "—"
// when unset.
func setting(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "—"
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// list joins names as a sentence does: "a, b and c".
func list(names []string) string {
	if n := len(names); n > 1 {
		return strings.Join(names[:n-1], ", ") + " and " + names[n-1]
	}
	return strings.Join(names, "")
}

// union is the keys of a and b, sorted.
func union[V any](a, b map[string]V) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

func target(e *testrun.RunEnv) string {
	if e.Simulated {
		return "the built-in simulator"
	}
	return "a real server"
}

func modelName(m string) string {
	if m == "" {
		return "(the server's first)"
	}
	return m
}

// approximate names what has approximate medians and percentiles in a run (metrics,
// then the Serving blocks as one), and the largest error bound.
func approximate(in *Input) (names []string, bound float64) {
	seen := map[string]bool{}
	blocks := false
	for _, s := range in.Stats {
		if s.ErrorBound <= 0 {
			continue
		}
		bound = max(bound, s.ErrorBound)
		if s.Group.Section != Metrics {
			blocks = true
		} else if !seen[s.order.name] {
			seen[s.order.name] = true
			names = append(names, s.order.name)
		}
	}
	slices.Sort(names)
	if blocks {
		names = append(names, "the Serving and Stage blocks")
	}
	return names, bound
}
