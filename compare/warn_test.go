package compare

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/omnik-dev/omnik/testrun"
)

// described is a run of chat.js at 4 requests a second, changed by edit.
func described(edit func(*testrun.RunAbout)) *Input {
	a := &testrun.RunAbout{Script: "/ci/chat.js", ScriptSHA256: "aaaa1111aaaa1111", OptionsSHA256: "0000ffff0000ffff",
		Env: &testrun.RunEnv{Omnik: "v1.0.0", Simulated: false, Scenarios: []testrun.ScenarioEnv{
			{Name: "chat", Executor: "constant-arrival-rate", VUs: 4, MaxVUs: 16,
				Config: json.RawMessage(`{"executor":"constant-arrival-rate","rate":4,"duration":"1m","tags":{"t":"a"}}`)},
			{Name: "images", Executor: "shared-iterations", VUs: 2, MaxVUs: 2},
		}}}
	if edit != nil {
		edit(a)
	}
	return &Input{Run: a, Stats: map[string]Stat{}}
}

func TestWarnings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		edit func(*testrun.RunAbout)
		want []string // every warning, in order; "info: " marks Info
	}{
		{"the same run", nil, nil},
		{"the same script elsewhere", func(a *testrun.RunAbout) { a.Script = "/home/me/chat.js" }, nil},
		{"another script", func(a *testrun.RunAbout) { a.Script, a.ScriptSHA256 = "/ci/chat2.js", "bbbb2222bbbb2222" },
			[]string{"script differs: chat.js (sha256 aaaa1111aaaa) → chat2.js (sha256 bbbb2222bbbb)"}},
		{"another script, unhashed", func(a *testrun.RunAbout) { a.Script, a.ScriptSHA256 = "/ci/other.js", "" },
			[]string{"script differs: chat.js → other.js"}},
		{"another rate", func(a *testrun.RunAbout) {
			a.OptionsSHA256 = "1111"
			a.Env.Scenarios[0].Config = json.RawMessage(`{"executor":"constant-arrival-rate","rate":8,"duration":"1m","tags":{"t":"b"}}`)
		}, []string{"load differs: scenario chat: constant-arrival-rate rate 4 → 8"}},
		{"another executor, VUs and scenarios", func(a *testrun.RunAbout) {
			a.Env.Scenarios[0].Executor = "ramping-arrival-rate"
			a.Env.Scenarios[1].VUs = 4
			a.Env.Scenarios = append(a.Env.Scenarios, testrun.ScenarioEnv{Name: "audio", Executor: "constant-vus"})
		}, []string{"load differs: scenario audio only in NEW; scenario chat: constant-arrival-rate → ramping-arrival-rate; scenario images: shared-iterations vus 2 → 4"}},
		{"a setting only one run has", func(a *testrun.RunAbout) {
			a.Env.Scenarios[0].Config = json.RawMessage(`{"executor":"constant-arrival-rate","rate":4,"duration":"1m","gracefulStop":"5s"}`)
		}, []string{"load differs: scenario chat: constant-arrival-rate gracefulStop — → 5s"}},
		{"other options, same load", func(a *testrun.RunAbout) { a.OptionsSHA256 = "1111ffff1111ffff" },
			[]string{"options differ (options_sha256 0000ffff0000 → 1111ffff1111): thresholds, tags or other options; the scenarios' load is the same"}},
		{"the simulator", func(a *testrun.RunAbout) { a.Env.Simulated = true },
			[]string{"BASE ran against a real server, NEW against the built-in simulator"}},
		{"another omnik", func(a *testrun.RunAbout) { a.Env.Omnik = "v1.1.0" }, []string{"info: omnik versions differ: v1.0.0 → v1.1.0"}},
		{"another model", func(a *testrun.RunAbout) { a.Env.Model = "Qwen/Qwen3-Omni-30B-A3B-Instruct" },
			[]string{"model differs: (the server's first) → Qwen/Qwen3-Omni-30B-A3B-Instruct"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := texts(warnings(described(nil), described(tc.edit))); !slices.Equal(got, tc.want) {
				t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func texts(ws []Warning) []string {
	var out []string
	for _, w := range ws {
		if w.Info {
			out = append(out, "info: "+w.Text)
		} else {
			out = append(out, w.Text)
		}
	}
	return out
}

// A summary an older omnik wrote says nothing of its run; its model comes from its
// Serving block, its approximate percentiles from its statistics.
func TestWarningsOfWhatTheSummarySays(t *testing.T) {
	t.Parallel()
	old := &Input{Stats: map[string]Stat{
		"ttft.p99":            {Key: "ttft.p99", ErrorBound: 0.002, Group: Group{Section: Metrics}, order: order{name: "ttft"}},
		"ttft{a:b}.p99":       {Key: "ttft{a:b}.p99", ErrorBound: 0.001, Group: Group{Section: Metrics}, order: order{name: "ttft"}},
		"e2el.med":            {Key: "e2el.med", ErrorBound: 0.001, Group: Group{Section: Metrics}, order: order{name: "e2el"}},
		"serving.p99_ttft_ms": {Key: "serving.p99_ttft_ms", ErrorBound: 0.001},
	}, modelID: "m1"}
	want := []string{
		"BASE does not say which script and load it ran (an older omnik wrote it): they are not compared",
		"model differs: m1 → (the server's first)",
		"BASE's medians and percentiles of e2el, ttft and the Serving and Stage blocks are approximate (HDR histograms, relative error ≤ 0.2%): smaller changes are noise",
	}
	if got := texts(warnings(old, described(nil))); !slices.Equal(got, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Said once when both runs are as approximate.
	both := "both runs' medians and percentiles of e2el, ttft and the Serving and Stage blocks are approximate (HDR histograms, relative error ≤ 0.2%): smaller changes are noise"
	if got := texts(warnings(old, old)); !slices.Contains(got, both) || len(got) != 3 {
		t.Errorf("warnings:\n%s\nwant one of:\n%s", strings.Join(got, "\n"), both)
	}
}
