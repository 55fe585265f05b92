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
	return sweepWith(t, src, edit, nil, opts...)
}

// sweepWith is sweepOf with before, which sees the sweep before it runs.
func sweepWith(t *testing.T, src string, edit func(*Options), before func(*Sweep), opts ...mock.Option) (engine.ExitCode, *Result, string) {
	t.Helper()
	dir, path := writeScript(t, src)
	var stdout, stderr bytes.Buffer
	o := Options{Run: testrun.Options{Script: testrun.Script{Path: path}}, Dir: filepath.Join(dir, "out"), Stdout: &stdout, Stderr: &stderr,
		NewMock: func() (*mock.Server, error) { return mock.New(opts...) }}
	if edit != nil {
		edit(&o)
	}
	sw := New(o)
	if before != nil {
		before(sw)
	}
	code, err := sw.Run(context.Background())
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

// vusKneeScript is a closed loop of chat requests, gated on the server's queue.
const vusKneeScript = `import omni from 'omni';
export const options = {
  scenarios: { chat: { executor: 'constant-vus', vus: 1, duration: '10s' } },
  thresholds: { 'server:vllm:num_requests_waiting': ['max < 1'] },
  sweep: { vus: [1, 64], warmup: '300ms', duration: '1s' },
  omni: { serverMetrics: { interval: '100ms' } },
};
export default async function () {
  await omni.chat({ messages: [{ role: 'user', content: 'ping' }], modalities: ['text'], max_tokens: 16 });
}
`

// Against a simulator that queues what is in flight past 4 requests, a sweep of a closed
// loop's VUs finds the knee exactly: n VUs keep n requests in flight but for the time a
// VU spends between two, so 4 never queue and 5 nearly always do. At a quarter of real
// speed a request lasts about 600 ms in the server, which a busy machine's gap between a
// VU's requests (milliseconds) does not come near. The search climbs 1, 2, 4, 8 and
// bisects to the neighbours 4 and 5.
func TestSweepFindsTheSimulatorsKnee(t *testing.T) {
	t.Parallel()
	const knee = 4
	code, res, out := sweepOf(t, vusKneeScript, nil, mock.WithLoadCurve(knee, 0), mock.WithSpeed(0.25))
	if res.ClientLimited {
		if !strings.Contains(res.Stop, "the client") {
			t.Errorf("stopped for the client, saying %q", res.Stop)
		}
		t.Skipf("the client was its own limit on this machine, so the knee cannot be measured: %s", res.Stop)
	}
	if code != 0 || res.Pass != knee || res.Fail != knee+1 {
		t.Fatalf("exit %d, passes at %v, fails at %v VUs: want the knee, %d and %d\n%s", code, res.Pass, res.Fail, knee, knee+1, out)
	}
	var loads []float64
	for _, st := range res.Steps {
		loads = append(loads, st.Load)
		if st.Passed != (st.Load <= knee) {
			t.Errorf("step %d at %v VUs: passed %v", st.N, st.Load, st.Passed)
		}
		if st.Measured <= 0 || st.Requests == 0 {
			t.Errorf("step %d measured %v with %d requests", st.N, st.Measured, st.Requests)
		}
		if _, err := os.Stat(st.File); err != nil {
			t.Errorf("step %d's file: %v", st.N, err)
		}
	}
	if want := []float64{1, 2, 4, 8, 6, 5}; !slices.Equal(loads, want) {
		t.Errorf("loads tried %v, want %v", loads, want)
	}
	if !strings.Contains(out, "Answer: passes at 4 VUs, fails at 5 VUs (6 steps in") || !strings.Contains(out, "Stopped: the answer is two neighbouring VU counts") {
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

// Stop during a step stops that step, which judges nothing: it is not in the table.
func TestSweepStoppedDuringAStep(t *testing.T) {
	t.Parallel()
	code, res, out := sweepWith(t, kneeScript, func(o *Options) {
		o.Flags = func(sp *Spec) { sp.Warmup, sp.Duration, sp.MaxTime = 0, time.Hour, 2*time.Hour }
	}, func(sw *Sweep) {
		go func() {
			for {
				sw.mu.Lock()
				running := sw.current != nil
				sw.mu.Unlock()
				if running {
					sw.Stop()
					return
				}
				time.Sleep(5 * time.Millisecond)
			}
		}()
	}, mock.WithLoadCurve(64, 0))
	if code != engine.ExitInterrupted || len(res.Steps) != 0 || !res.Interrupted || !strings.Contains(res.Stop, "unjudged") {
		t.Errorf("exit %d, %d steps, stop %q: want 105, the stopped step left out\n%s", code, len(res.Steps), res.Stop, out)
	}
}

// Stop during the cool-down between steps ends it at once, and no other step runs.
func TestSweepStoppedDuringTheCooldown(t *testing.T) {
	t.Parallel()
	sim, err := mock.New(mock.WithLoadCurve(64, 0))
	if err != nil {
		t.Fatal(err)
	}
	url, err := sim.StartLoopback()
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	code, res, out := sweepWith(t, kneeScript, func(o *Options) {
		o.NewMock, o.Run.Omni.BaseURL = nil, url
		o.Flags = func(sp *Spec) {
			sp.Warmup, sp.Duration, sp.Cooldown, sp.MaxTime = 0, 300*time.Millisecond, time.Hour, 2*time.Hour
		}
	}, func(sw *Sweep) {
		// Ctrl-C as the cool-down begins: the hour's wait must end with it.
		sw.o.sleep = func(ctx context.Context, stop <-chan struct{}, d time.Duration) {
			sw.Stop()
			sleep(ctx, stop, d)
		}
	})
	if code != engine.ExitInterrupted || len(res.Steps) != 1 || !strings.HasPrefix(res.Stop, "stopped before step 2") {
		t.Errorf("exit %d, %d steps, stop %q: want 105 after the one step before the cool-down\n%s", code, len(res.Steps), res.Stop, out)
	}
	if !strings.Contains(out, "(so far: the sweep was stopped)") {
		t.Errorf("the answer does not say the sweep was stopped:\n%s", out)
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

func dur(d time.Duration) *engine.Duration { v := engine.Duration(d); return &v }

func TestStepOptions(t *testing.T) {
	bg := map[string]*engine.ScenarioConfig{"bg": {Executor: "constant-vus", Duration: dur(time.Hour)}}
	for _, c := range []struct {
		name, script string
		tg           target
		knob         Knob
		load         float64
		want         string
	}{
		{"rate, a background capped to the step", `{"scenarios":{"chat":{"executor":"constant-arrival-rate","rate":1,"timeUnit":"1m","duration":"1h","preAllocatedVUs":8},"bg":{"executor":"constant-vus","vus":1,"duration":"1h"}},"thresholds":{"e2el":["p(99)<1"]}}`,
			target{name: "chat", others: bg}, Rate, 6.5,
			// The rest is kept as written (JSON's escaping aside).
			`{"scenarios":{"bg":{"duration":"12s","executor":"constant-vus","vus":1},"chat":{"duration":"12s","executor":"constant-arrival-rate","preAllocatedVUs":8,"rate":6.5,"timeUnit":"1s"}},"thresholds":{"e2el":["p(99)\u003c1"]}}`},
		{"a background that starts later ends with the step", `{"scenarios":{"c":{"executor":"constant-vus","vus":1,"duration":"1h","startTime":"2s"},"it":{"executor":"shared-iterations","vus":1,"iterations":9,"startTime":"5s"}}}`,
			target{name: "c", startTime: 2 * time.Second, others: map[string]*engine.ScenarioConfig{"it": {Executor: "shared-iterations", StartTime: dur(5 * time.Second)}}}, VUs, 2,
			`{"scenarios":{"c":{"duration":"12s","executor":"constant-vus","startTime":"2s","vus":2},"it":{"executor":"shared-iterations","iterations":9,"maxDuration":"9s","startTime":"5s","vus":1}}}`},
		{"poisson loses its iterations", `{"scenarios":{"p":{"executor":"poisson-arrival-rate","rate":1,"iterations":100,"maxDuration":"1h"}}}`,
			target{name: "p"}, Rate, 2,
			`{"scenarios":{"p":{"duration":"12s","executor":"poisson-arrival-rate","rate":2,"timeUnit":"1s"}}}`},
		{"shortcut", `{"vus":1,"duration":"1h","sweep":{"vus":[1,8]}}`,
			target{name: "default", shortcut: true}, VUs, 3,
			`{"duration":"12s","sweep":{"vus":[1,8]},"vus":3}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.tg.stepOptions(json.RawMessage(c.script), c.knob, c.load, 12*time.Second)
			if err != nil || string(got) != c.want {
				t.Errorf("got %s (%v)\nwant %s", got, err, c.want)
			}
		})
	}
}

// Other scenarios a step cannot end with the swept one are refused before anything runs.
func TestOtherScenariosMustFitAStep(t *testing.T) {
	stages := []engine.Stage{{Duration: engine.Duration(20 * time.Second), Target: 4}}
	for _, c := range []struct {
		name  string
		other *engine.ScenarioConfig
		want  string
	}{
		{"starts after", &engine.ScenarioConfig{Executor: "constant-vus", StartTime: dur(time.Minute)}, "would run alone"},
		{"stages too long", &engine.ScenarioConfig{Executor: "ramping-vus", Stages: stages}, "stages last 20s"},
		{"a trace", &engine.ScenarioConfig{Executor: "trace-replay"}, "replays a trace"},
	} {
		tg := target{name: "a", others: map[string]*engine.ScenarioConfig{"b": c.other}}
		if err := tg.checkOthers(12 * time.Second); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	ok := target{name: "a", others: map[string]*engine.ScenarioConfig{"b": {Executor: "ramping-vus", Stages: stages[:0]}}}
	if err := ok.checkOthers(12 * time.Second); err != nil {
		t.Errorf("stages that fit: %v", err)
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
	f.Add("1.239:1.239", []byte(`{"rate":[1,2]}`))
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

// An OMNIK_ variable sits above the script's options, where a step sets its load: the
// sweep refuses to run loads it would not send.
func TestSweepRefusesALoadAnotherLayerReplaces(t *testing.T) {
	t.Setenv("OMNIK_VUS", "3")
	t.Setenv("OMNIK_DURATION", "1s")
	shortcut := `export const options = { vus: 1, duration: '5s', thresholds: { iterations: ['count > 0'] }, sweep: { vus: [1, 4] } };
export default function () {}
`
	// Scenarios the variables replace, and a shortcut whose load they set.
	for _, src := range []string{vusKneeScript, shortcut} {
		dir, path := writeScript(t, src)
		_, err := New(Options{Run: testrun.Options{Script: testrun.Script{Path: path}}, Dir: filepath.Join(dir, "out"),
			NewMock: func() (*mock.Server, error) { return mock.New() }}).Run(context.Background())
		if err == nil || engine.ExitCodeOf(err) != engine.ExitInvalidConfig || !strings.Contains(err.Error(), "unset OMNIK_VUS") {
			t.Errorf("err %v: want exit 104 naming the variable", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
			t.Error("a refused sweep made its directory")
		}
	}
}

// A rate the VUs cannot start is not the rate asked for: the step fails, saying so, even
// with every threshold passing. One VU and requests of at least 156 ms (the simulator's,
// slower on a busy machine) cannot start arrivals 125 ms apart: at 8 req/s a fifth of
// them or more find no VU. At 1 req/s a request would need a second to drop one.
func TestSweepFailsALoadItCouldNotOffer(t *testing.T) {
	t.Parallel()
	src := `import omni from 'omni';
export const options = {
  scenarios: { chat: { executor: 'constant-arrival-rate', rate: 1, duration: '10s', preAllocatedVUs: 1 } },
  thresholds: { e2el: ['p(99) < 60000'] },
  sweep: { rate: [1, 8], factor: 8, warmup: '0s', duration: '2s', precision: 1 },
};
export default async function () {
  await omni.chat({ messages: [{ role: 'user', content: 'ping' }], modalities: ['text'], max_tokens: 16 });
}
`
	code, res, out := sweepOf(t, src, nil)
	if res.ClientLimited {
		t.Skipf("the client was its own limit on this machine: %s", res.Stop)
	}
	if code != 0 || len(res.Steps) < 2 || res.Steps[0].Load != 1 || !res.Steps[0].Passed {
		t.Fatalf("exit %d, %d steps: want 1 req/s passing first\n%s", code, len(res.Steps), out)
	}
	// Past 8 the bisection's loads depend on the machine's speed; 8 does not.
	st := res.Steps[1]
	if st.Load != 8 || st.Passed || !strings.Contains(st.NotOffered, "arrivals dropped") || !st.Thresholds[0].OK || res.Fail > 8 {
		t.Errorf("step 2 at %v req/s: passed %v, not offered %q, threshold %+v, answer's fail %v: want 8 failing for its arrivals alone\n%s",
			st.Load, st.Passed, st.NotOffered, st.Thresholds[0], res.Fail, out)
	}
}

// A directory that holds another sweep's steps is refused: their files would mix.
func TestSweepRefusesAnotherSweepsDirectory(t *testing.T) {
	t.Parallel()
	dir, path := writeScript(t, vusKneeScript)
	if err := os.WriteFile(filepath.Join(dir, "step-01-vus-1.ndjson.gz"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := New(Options{Run: testrun.Options{Script: testrun.Script{Path: path}}, Dir: dir,
		NewMock: func() (*mock.Server, error) { return mock.New() }}).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "holds another sweep's steps") {
		t.Errorf("err %v: want a refusal", err)
	}
}

func TestLoadsPrintAsTheyAre(t *testing.T) {
	for load, want := range map[float64]string{1000: "1000", 1020: "1020", 0.5: "0.5", 6.17: "6.17", 12: "12"} {
		if got := Rate.Format(load); got != want {
			t.Errorf("Format(%v) = %q, want %q", load, got, want)
		}
	}
	if got := roundRate(1024); got != 1020 {
		t.Errorf("roundRate(1024) = %v", got)
	}
	// The first load stays in the range however the minimum rounds.
	for _, c := range [][2]float64{{1.239, 1.239}, {0.12345, 8}, {1, 1}} {
		if got := newSearch(Rate, c[0], c[1], 2, 0.05).first(); got < c[0] || got > c[1] {
			t.Errorf("first load of [%v, %v] is %v", c[0], c[1], got)
		}
	}
}

// A background scenario that drops its own arrivals does not fail the swept one's step:
// the swept scenario's drops and lag are its own.
func TestSweepJudgesTheSweptScenariosArrivalsAlone(t *testing.T) {
	t.Parallel()
	src := `import omni from 'omni';
export const options = {
  scenarios: {
    chat: { executor: 'constant-arrival-rate', rate: 1, duration: '10s', preAllocatedVUs: 8 },
    bg: { executor: 'constant-arrival-rate', rate: 20, duration: '1h', preAllocatedVUs: 1, exec: 'bg' },
  },
  thresholds: { e2el: ['p(99) < 60000'] },
  sweep: { scenario: 'chat', rate: [2, 2], warmup: '0s', duration: '1s' },
};
const ask = () => omni.chat({ messages: [{ role: 'user', content: 'ping' }], modalities: ['text'], max_tokens: 16 });
export default async function () { await ask(); }
export async function bg() { await ask(); }
`
	code, res, out := sweepOf(t, src, nil)
	if res.ClientLimited {
		t.Skipf("the client was its own limit on this machine: %s", res.Stop)
	}
	if code != 0 || len(res.Steps) != 1 || !res.Steps[0].Passed || res.Steps[0].Dropped != 0 {
		t.Errorf("exit %d, steps %+v: want the one step passing, none of its own arrivals dropped\n%s", code, res.Steps, out)
	}
	// The background dropped most of its 20 a second (one VU, requests of 156 ms or more),
	// and ended with the step: its hour, uncut, would be the step's length.
	if m := res.Steps[0].Measured; m >= 30*time.Minute {
		t.Errorf("the step lasted %v: the background's hour was not cut", m)
	}
}
