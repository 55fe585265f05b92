package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// inspected is the part of `omnik inspect` output the layering tests look at.
type inspected struct {
	Options struct {
		VUs        *int64            `json:"vus"`
		Iterations *int64            `json:"iterations"`
		Duration   *string           `json:"duration"`
		Tags       map[string]string `json:"tags"`
		Setup      string            `json:"setupTimeout"`
	} `json:"options"`
	Plan struct {
		Scenarios []struct {
			Name       string `json:"name"`
			Executor   string `json:"executor"`
			VUs        int64  `json:"vus"`
			Iterations int64  `json:"iterations"`
			Duration   string `json:"duration"`
		} `json:"scenarios"`
		MaxVUs int64 `json:"maxVUs"`
	} `json:"plan"`
}

func TestInspectLayersOptions(t *testing.T) {
	t.Parallel()
	const script = "export const options = { vus: 2, iterations: 10 };\nexport default function () {}\n"
	const bare = "export default function () {}\n"
	const config = `{"vus": 5, "iterations": 50, "tags": {"team": "x"}, "setupTimeout": "7s"}`
	type plan struct {
		executor        string
		vus, iterations int64
		duration        string
		setup           string
		tags            map[string]string
	}
	tests := []struct {
		name   string
		script string
		env    []string
		args   []string
		want   plan
	}{
		{"script options", script, nil, nil, plan{"shared-iterations", 2, 10, "10m0s", "1m0s", nil}},
		{"environment over script", script, []string{"OMNIK_VUS=3", "OMNIK_ITERATIONS=20"}, nil, plan{"shared-iterations", 3, 20, "10m0s", "1m0s", nil}},
		{"flags over environment", script, []string{"OMNIK_VUS=3", "OMNIK_ITERATIONS=20"}, []string{"--vus", "4", "--iterations", "40"}, plan{"shared-iterations", 4, 40, "10m0s", "1m0s", nil}},
		{"a flag overrides only its own key", script, []string{"OMNIK_VUS=3"}, []string{"--iterations", "40"}, plan{"shared-iterations", 3, 40, "10m0s", "1m0s", nil}},
		{"config file alone", bare, nil, []string{"--config", "config.json"}, plan{"shared-iterations", 5, 50, "10m0s", "7s", map[string]string{"team": "x"}}},
		{"script over config file", script, nil, []string{"--config", "config.json"}, plan{"shared-iterations", 2, 10, "10m0s", "7s", map[string]string{"team": "x"}}},
		{"duration flag replaces script iterations", script, nil, []string{"--duration", "3s"}, plan{"constant-vus", 2, 0, "3s", "1m0s", nil}},
		{"OMNIK_DURATION replaces script iterations", script, []string{"OMNIK_DURATION=4s"}, nil, plan{"constant-vus", 2, 0, "4s", "1m0s", nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeFiles(t, map[string]string{"script.js": tt.script, "config.json": config})
			r := runOmnik(t, dir, tt.env, append(append([]string{"inspect"}, tt.args...), "script.js")...)
			expect{code: 0}.check(t, r)
			var got inspected
			if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
				t.Fatalf("inspect output is not JSON: %v\n%s", err, r.stdout)
			}
			if len(got.Plan.Scenarios) != 1 {
				t.Fatalf("plan has %d scenarios, want 1:\n%s", len(got.Plan.Scenarios), r.stdout)
			}
			sc := got.Plan.Scenarios[0]
			w := tt.want
			if sc.Name != "default" || sc.Executor != w.executor || sc.VUs != w.vus || sc.Iterations != w.iterations || sc.Duration != w.duration {
				t.Errorf("plan scenario = %+v, want default %+v", sc, w)
			}
			if o := got.Options; o.VUs == nil || *o.VUs != w.vus {
				t.Errorf("options.vus = %v, want %d", o.VUs, w.vus)
			}
			if w.iterations > 0 && (got.Options.Iterations == nil || *got.Options.Iterations != w.iterations) {
				t.Errorf("options.iterations = %v, want %d", got.Options.Iterations, w.iterations)
			}
			if w.iterations == 0 && got.Options.Iterations != nil {
				t.Errorf("options.iterations = %d, want none once a duration replaced it", *got.Options.Iterations)
			}
			if got.Options.Setup != w.setup {
				t.Errorf("options.setupTimeout = %q, want %q", got.Options.Setup, w.setup)
			}
			if len(got.Options.Tags) != len(w.tags) || got.Options.Tags["team"] != w.tags["team"] {
				t.Errorf("options.tags = %v, want %v", got.Options.Tags, w.tags)
			}
			if got.Plan.MaxVUs != w.vus {
				t.Errorf("plan.maxVUs = %d, want %d", got.Plan.MaxVUs, w.vus)
			}
		})
	}
}

// The consolidated options are what run uses: OMNIK_ITERATIONS must change what runs,
// not only what inspect prints.
func TestRunUsesLayeredIterations(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"script.js": "export const options = { vus: 1, iterations: 10 };\nexport default function () {}\n"})
	r := runOmnik(t, dir, []string{"OMNIK_ITERATIONS=20"}, "run", "-q", "--iterations", "3", "script.js")
	expect{code: 0, stdout: []string{"iterations..........: 3 "}}.check(t, r)
	r = runOmnik(t, dir, []string{"OMNIK_ITERATIONS=7"}, "run", "-q", "script.js")
	expect{code: 0, stdout: []string{"iterations..........: 7 "}}.check(t, r)
}

// inspect loads omni scripts like run does (without sending anything), checks thresholds
// on omni metrics, and never prints the API key.
func TestInspectLoadsOmniScriptsAndRedactsTheKey(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"script.js": `import omni from 'omni';
export const options = { iterations: 1, omni: { ApiKey: 'sk-SECRET123', headers: { Authorization: 'Bearer sk-SECRET456', 'X-Trace': 'keep' } }, thresholds: { ttfc: ['p(99) < 900'] } };
export default async function () { await omni.chat({ messages: [] }); }`})
	r := runOmnik(t, dir, cleanEnv(), "inspect", "script.js")
	if r.code != 0 {
		t.Fatalf("inspect exit %d:\n%s", r.code, r)
	}
	if strings.Contains(r.stdout+r.stderr, "sk-SECRET") || !strings.Contains(r.stdout, `"X-Trace": "keep"`) {
		t.Errorf("the API key was printed:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, `"ApiKey": "(redacted)"`) {
		t.Errorf("no redacted apiKey in:\n%s", r.stdout)
	}
	quick, err := filepath.Abs("../../examples/scripts/quickstart.js")
	if err != nil {
		t.Fatal(err)
	}
	if r := runOmnik(t, dir, cleanEnv(), "inspect", quick); r.code != 0 {
		t.Errorf("inspect quickstart.js exit %d:\n%s", r.code, r)
	}
}

// --execution-segment runs a slice of the test: four instances with 0:1/4 … 3/4:1 share
// the iterations exactly.
func TestExecutionSegmentRunsItsShare(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"script.js": `export const options = {
  scenarios: { s: { executor: 'shared-iterations', vus: 4, iterations: 10 } } };
export default function () {}`})
	total := 0
	for _, seg := range []string{"0:1/4", "1/4:1/2", "1/2:3/4", "3/4:1"} {
		r := runOmnik(t, dir, cleanEnv(), "run", "-q", "--execution-segment", seg, "script.js")
		if r.code != 0 {
			t.Fatalf("%s: exit %d\n%s", seg, r.code, r)
		}
		fields := strings.Fields(r.stdout[strings.Index(r.stdout, "iterations.."):])
		n, err := strconv.Atoi(fields[1])
		if err != nil {
			t.Fatalf("%s: iterations line %q", seg, fields[:2])
		}
		total += n
	}
	if total != 10 {
		t.Errorf("the four segments ran %d iterations, want 10", total)
	}
	for _, tc := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"--execution-segment", "1/2:1/4"}, "need 0 <= start < end <= 1"},
		{nil, []string{"--execution-segment", "auto"}, "JOB_COMPLETION_INDEX"},
		{[]string{"JOB_COMPLETION_INDEX=4", "OMNIK_SEGMENTS=4"}, []string{"--execution-segment", "auto"}, "piece 4 of 4"},
		{[]string{"JOB_COMPLETION_INDEX=1"}, []string{"--execution-segment", "auto"}, "OMNIK_SEGMENTS"},
		{[]string{"JOB_COMPLETION_INDEX=1", "OMNIK_SEGMENTS=4"}, []string{"--execution-segment", "auto", "--execution-segment-sequence", "0,1/2,1"}, "takes no --execution-segment-sequence"},
		{nil, []string{"--execution-segment", "0:1/4", "--execution-segment-sequence", "0,1/3,1"}, "not two adjacent boundaries"},
		{nil, []string{"--start-at", "noon"}, "want an RFC 3339 time"},
	} {
		r := runOmnik(t, dir, append(cleanEnv(), tc.env...), append(append([]string{"run"}, tc.args...), "script.js")...)
		if r.code != 104 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v %v: exit %d, want 104 and %q:\n%s", tc.env, tc.args, r.code, tc.want, r.stderr)
		}
	}
}
