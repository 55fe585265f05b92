package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/mock"
	"github.com/omnik-dev/omnik/modules/omni/record"
	"github.com/omnik-dev/omnik/testrun"
)

// kneeScript is a chat scenario at an arrival rate, gated on the server's queue: the
// simulator queues exactly the requests in flight past its knee.
const kneeScript = `import omni from 'omni';
export const options = {
  scenarios: { chat: { executor: 'constant-arrival-rate', rate: 1, duration: '10s', preAllocatedVUs: 64 } },
  thresholds: { 'server:vllm:num_requests_waiting': ['max < 1'] },
  sweep: { rate: [2, 64], warmup: '500ms', duration: '1500ms' },
  omni: { serverMetrics: { interval: '200ms' } },
};
export default async function () {
  await omni.chat({ messages: [{ role: 'user', content: 'ping' }], modalities: ['text'], max_tokens: 16 });
}
`

// writeScript writes src into a new directory.
func writeScript(t *testing.T, src string) (dir, path string) {
	t.Helper()
	dir = t.TempDir()
	path = filepath.Join(dir, "script.js")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

// sweepOf runs a sweep of src against fresh simulators made with opts.
func sweepOf(t *testing.T, src string, edit func(*Options), opts ...mock.Option) (engine.ExitCode, *Result, string) {
	t.Helper()
	dir, path := writeScript(t, src)
	var stdout, stderr bytes.Buffer
	o := Options{Run: testrun.Options{Script: testrun.Script{Path: path}}, Dir: filepath.Join(dir, "out"), Stdout: &stdout, Stderr: &stderr,
		NewMock: func() (*mock.Server, error) { return mock.New(opts...) }}
	if edit != nil {
		edit(&o)
	}
	code, err := New(o).Run(context.Background())
	if err != nil {
		t.Fatalf("sweep: %v\n%s", err, stderr.String())
	}
	var res Result
	b, err := os.ReadFile(filepath.Join(o.Dir, "sweep.json"))
	if err == nil {
		err = json.Unmarshal(b, &res)
	}
	if err != nil {
		t.Fatalf("sweep.json: %v", err)
	}
	return code, &res, stdout.String() + stderr.String()
}

// e2els are the end-to-end latencies of a step file's requests.
func e2els(t *testing.T, path string) []time.Duration {
	t.Helper()
	var out []time.Duration
	if _, err := testrun.Summarize(path, nil, record.SubscriberFunc(func(r *record.Record) { out = append(out, record.E2EL(r)) })); err != nil {
		t.Fatal(err)
	}
	return out
}

// Against a simulator whose queue starts past 2 requests in flight, the sweep finds the
// rate where requests of S seconds start to overlap more than twice: 2/S, at constant
// arrivals. S is the requests' own latency at the lowest load, read from that step's
// file. Below 0.85·2/S a spurious queue needs a delay of 15 % of S (23 ms) in an
// unloaded server, and from 2/S on the queue grows for good, so the bracket lies within
// 15 % of the knee on a busy machine too, and as tight as asked.
func TestSweepFindsTheSimulatorsKnee(t *testing.T) {
	t.Parallel()
	const knee = 2
	code, res, out := sweepOf(t, kneeScript, nil, mock.WithLoadCurve(knee, 2))
	if code != 0 || res.Pass == 0 || res.Fail == 0 {
		t.Fatalf("exit %d, bracket [%v, %v]: want a pass and a fail\n%s", code, res.Pass, res.Fail, out)
	}
	lowest := slices.MinFunc(res.Steps, func(a, b Step) int { return int(a.Load - b.Load) })
	lat := e2els(t, lowest.File)
	slices.Sort(lat)
	if len(lat) == 0 {
		t.Fatalf("the lowest step has no requests")
	}
	s := lat[len(lat)/2].Seconds()
	want := knee / s
	if res.Pass < 0.85*want || res.Fail > 1.15*want || res.Fail/res.Pass > 1+DefaultPrecision {
		t.Errorf("passes at %v, fails at %v req/s: want a bracket within 5%% around the knee %.2f req/s (2 / %.3f s)\n%s", res.Pass, res.Fail, want, s, out)
	}
	for _, st := range res.Steps {
		if st.Passed != (st.Load <= res.Pass) {
			t.Errorf("step %d at %v: passed %v, yet the answer is %v", st.N, st.Load, st.Passed, res.Pass)
		}
		if st.Measured <= 0 || st.Requests == 0 {
			t.Errorf("step %d measured %v with %d requests", st.N, st.Measured, st.Requests)
		}
		if _, err := os.Stat(st.File); err != nil {
			t.Errorf("step %d's file: %v", st.N, err)
		}
	}
	if !strings.Contains(out, "Answer: passes at ") || !strings.Contains(out, "Stopped: the answer is within 5%") {
		t.Errorf("the table lacks its answer:\n%s", out)
	}
	// A step's file re-reports with that step's verdict.
	last := res.Steps[len(res.Steps)-1]
	code, err := testrun.Report(testrun.ReportOptions{Path: last.File})
	if err != nil || code != last.Exit {
		t.Errorf("omnik report of step %d: exit %d (%v), the step exited %d", last.N, code, err, last.Exit)
	}
}

// When even the lowest load fails (a simulator that queues everything), the sweep
// exits 99 after that one step.
func TestSweepLowestLoadFails(t *testing.T) {
	t.Parallel()
	src := strings.Replace(kneeScript, "rate: [2, 64]", "rate: [4, 64]", 1)
	code, res, out := sweepOf(t, src, func(o *Options) {
		o.Flags = func(s *Spec) { s.Warmup, s.Duration = 0, 600*time.Millisecond }
	}, mock.WithLoadCurve(0, 0))
	if code != engine.ExitThresholdsFailed || len(res.Steps) != 1 || res.Pass != 0 || res.Fail != 4 {
		t.Fatalf("exit %d, %d steps, bracket [%v, %v]: want 99 after one failing step at 4\n%s", code, len(res.Steps), res.Pass, res.Fail, out)
	}
	if !strings.Contains(out, "Answer: fails at 4 req/s, the lowest load tried") {
		t.Errorf("answer:\n%s", out)
	}
}

// The time cap is checked before each step: a step that would end past it is not run.
func TestSweepStopsAtTheTimeCap(t *testing.T) {
	t.Parallel()
	step := 500 * time.Millisecond
	t0, made := time.Now(), 0
	code, res, out := sweepOf(t, kneeScript, func(o *Options) {
		o.Flags = func(s *Spec) { s.Warmup, s.Duration, s.MaxTime = 0, step, 5*step/2 }
		mk := o.NewMock
		// The clock moves a step at each simulator made: one for the script's probe,
		// then one a step.
		o.NewMock = func() (*mock.Server, error) { made++; return mk() }
		o.now = func() time.Time { return t0.Add(time.Duration(max(made-1, 0)) * step) }
	}, mock.WithLoadCurve(64, 0))
	if code != 0 || len(res.Steps) != 2 || !strings.HasPrefix(res.Stop, "time cap") {
		t.Errorf("exit %d, %d steps, stop %q: want 2 steps, then the cap\n%s", code, len(res.Steps), res.Stop, out)
	}
}

// Stop before the first step ends the sweep with no step and exit 105, the table printed.
func TestSweepStopped(t *testing.T) {
	t.Parallel()
	dir, path := writeScript(t, kneeScript)
	var stdout bytes.Buffer
	s := New(Options{Run: testrun.Options{Script: testrun.Script{Path: path}}, Dir: dir, Stdout: &stdout,
		NewMock: func() (*mock.Server, error) { return mock.New() }})
	s.Stop()
	code, err := s.Run(context.Background())
	if err != nil || code != engine.ExitInterrupted || !strings.Contains(stdout.String(), "Answer: no step finished") {
		t.Errorf("exit %d (%v): want 105 and the empty table\n%s", code, err, stdout.String())
	}
}

// What cannot be swept is refused before any step, exit 104, with a message that says
// what to change.
func TestSweepRefuses(t *testing.T) {
	t.Parallel()
	base := `import omni from 'omni';
export const options = OPTIONS;
export default async function () { await omni.chat({ messages: [{ role: 'user', content: 'ping' }], max_tokens: 4 }); }
`
	for _, c := range []struct{ name, options, want string }{
		{"no thresholds", `{ scenarios: { a: { executor: 'constant-vus', vus: 1, duration: '1s' } }, sweep: { vus: [1, 4] } }`, "no thresholds"},
		{"no knob", `{ scenarios: { a: { executor: 'constant-vus', vus: 1, duration: '1s' } }, thresholds: { e2el: ['p(99) < 1'] } }`, "no load to sweep"},
		{"wrong executor", `{ scenarios: { a: { executor: 'shared-iterations', vus: 1, iterations: 2 } }, thresholds: { e2el: ['p(99) < 1'] }, sweep: { rate: [1, 4] } }`, "needs constant-arrival-rate or poisson-arrival-rate"},
		{"vus of a rate scenario", `{ scenarios: { a: { executor: 'constant-arrival-rate', rate: 1, duration: '1s', preAllocatedVUs: 1 } }, thresholds: { e2el: ['p(99) < 1'] }, sweep: { vus: [1, 4] } }`, "needs constant-vus"},
		{"two scenarios", `{ scenarios: { a: { executor: 'constant-vus', vus: 1, duration: '1s' }, b: { executor: 'constant-vus', vus: 1, duration: '1s' } }, thresholds: { e2el: ['p(99) < 1'] }, sweep: { vus: [1, 4] } }`, "name the one to sweep"},
		{"unknown scenario", `{ scenarios: { a: { executor: 'constant-vus', vus: 1, duration: '1s' } }, thresholds: { e2el: ['p(99) < 1'] }, sweep: { vus: [1, 4], scenario: 'z' } }`, `no scenario "z"`},
		{"unknown key", `{ thresholds: { e2el: ['p(99) < 1'] }, sweep: { vus: [1, 4], rampUp: 2 } }`, `unknown field "rampUp"`},
		{"both knobs", `{ thresholds: { e2el: ['p(99) < 1'] }, sweep: { vus: [1, 4], rate: [1, 2] } }`, "a sweep varies one"},
		{"bad range", `{ vus: 1, duration: '1s', thresholds: { e2el: ['p(99) < 1'] }, sweep: { vus: [4, 1] } }`, "want 0 < MIN ≤ MAX"},
		{"fractional vus", `{ vus: 1, duration: '1s', thresholds: { e2el: ['p(99) < 1'] }, sweep: { vus: [1.5, 4] } }`, "whole numbers"},
		{"short max time", `{ vus: 1, duration: '1s', thresholds: { e2el: ['p(99) < 1'] }, sweep: { vus: [1, 4], maxTime: '1s' } }`, "max time 1s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, path := writeScript(t, strings.Replace(base, "OPTIONS", c.options, 1))
			_, err := New(Options{Run: testrun.Options{Script: testrun.Script{Path: path}}, Dir: filepath.Join(dir, "out"),
				NewMock: func() (*mock.Server, error) { return mock.New() }}).Run(context.Background())
			if err == nil || engine.ExitCodeOf(err) != engine.ExitInvalidConfig || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err %v (exit %d): want exit 104 saying %q", err, engine.ExitCodeOf(err), c.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
				t.Error("a refused sweep made its directory")
			}
		})
	}
}

func TestStepOptions(t *testing.T) {
	for _, c := range []struct {
		name, script string
		tg           target
		knob         Knob
		load         float64
		want         string
	}{
		{"rate", `{"scenarios":{"chat":{"executor":"constant-arrival-rate","rate":1,"timeUnit":"1m","duration":"1h","preAllocatedVUs":8},"bg":{"executor":"constant-vus","vus":1,"duration":"1h"}},"thresholds":{"e2el":["p(99)<1"]}}`,
			target{name: "chat"}, Rate, 6.5,
			// The other scenario and the rest are kept as written (JSON's escaping aside).
			`{"scenarios":{"bg":{"executor":"constant-vus","vus":1,"duration":"1h"},"chat":{"duration":"12s","executor":"constant-arrival-rate","preAllocatedVUs":8,"rate":6.5,"timeUnit":"1s"}},"thresholds":{"e2el":["p(99)\u003c1"]}}`},
		{"poisson loses its iterations", `{"scenarios":{"p":{"executor":"poisson-arrival-rate","rate":1,"iterations":100,"maxDuration":"1h"}}}`,
			target{name: "p"}, Rate, 2,
			`{"scenarios":{"p":{"duration":"12s","executor":"poisson-arrival-rate","rate":2,"timeUnit":"1s"}}}`},
		{"vus", `{"scenarios":{"c":{"executor":"constant-vus","vus":1,"duration":"1h"}}}`,
			target{name: "c"}, VUs, 12,
			`{"scenarios":{"c":{"duration":"12s","executor":"constant-vus","vus":12}}}`},
		{"shortcut", `{"vus":1,"iterations":5,"sweep":{"vus":[1,8]}}`,
			target{name: "default", shortcut: true}, VUs, 3,
			`{"duration":"12s","sweep":{"vus":[1,8]},"vus":3}`},
		{"no options", ``, target{name: "default", shortcut: true}, VUs, 3, `{"duration":"12s","vus":3}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.tg.stepOptions(json.RawMessage(c.script), c.knob, c.load, 12*time.Second)
			if err != nil || string(got) != c.want {
				t.Errorf("got %s (%v)\nwant %s", got, err, c.want)
			}
		})
	}
}

func TestParseRangeAndPrecision(t *testing.T) {
	for _, c := range []struct {
		in     string
		lo, hi float64
		ok     bool
	}{{"1:64", 1, 64, true}, {" 0.5 : 8 ", 0.5, 8, true}, {"8", 0, 0, false}, {"a:b", 0, 0, false}, {"1:", 0, 0, false}} {
		lo, hi, err := ParseRange(c.in)
		if (err == nil) != c.ok || lo != c.lo || hi != c.hi {
			t.Errorf("ParseRange(%q) = %v, %v, %v", c.in, lo, hi, err)
		}
	}
	for in, want := range map[string]float64{"5%": 0.05, "0.05": 0.05, "10 %": 0.1} {
		if got, err := ParsePrecision(in); err != nil || math.Abs(got-want) > 1e-12 {
			t.Errorf("ParsePrecision(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParsePrecision("five"); err == nil {
		t.Error("ParsePrecision(five) passed")
	}
}

// Whatever a command line or script gives, the parsers answer or refuse; what they
// accept and Check passes is a range the search can walk.
func FuzzSpec(f *testing.F) {
	f.Add("1:64", []byte(`{"rate":[1,64],"precision":0.05}`))
	f.Add("0:1e400", []byte(`{"vus":[1,1e9],"warmup":"-1s"}`))
	f.Add("NaN:inf", []byte(`{"rate":[0,0],"factor":1}`))
	f.Fuzz(func(t *testing.T, rng string, raw []byte) {
		spec, err := ParseScriptSpec(raw)
		if err != nil {
			return
		}
		if lo, hi, err := ParseRange(rng); err == nil && spec.Knob != "" {
			spec.Min, spec.Max = lo, hi
		}
		if spec.Check() != nil {
			return
		}
		s := newSearch(spec.Knob, spec.Min, spec.Max, spec.Factor, spec.Precision)
		for n := 0; ; n++ {
			load, ok := s.next()
			if !ok {
				break
			}
			if n > 1000 || load < spec.Min || load > spec.Max || math.IsNaN(load) {
				t.Fatalf("step %d: load %v of [%v, %v]", n, load, spec.Min, spec.Max)
			}
			s.record(load, load < math.Sqrt(spec.Min*spec.Max))
		}
	})
}
