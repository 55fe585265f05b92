package testrun

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/metrics"
)

// Each limit alone makes the client saturated, just at its bound and not below, and the
// line names what crossed it and what to do about that.
func TestClientVerdictRules(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	idle := clientVerdict{CPU: 0.5, Cores: 2, CPUWait: ms, LagP99: 2 * ms, VUs: 50}
	with := func(edit func(*clientVerdict)) clientVerdict { v := idle; edit(&v); return v }
	for _, c := range []struct {
		name       string
		in         clientVerdict
		saturated  bool
		has, lacks []string
	}{
		{name: "idle", in: idle},
		{name: "nothing measured", in: clientVerdict{}},
		{name: "CPU just below", in: with(func(v *clientVerdict) { v.CPU = 0.799 })},
		{name: "CPU at the bound", in: with(func(v *clientVerdict) { v.CPU = 0.8 }), saturated: true,
			has: []string{"CPU 80 % of 2 cores —", "latencies include the client's own queueing", "keep 20 % idle"}, lacks: []string{"lag", "dropped", "maxVUs", "taskset"}},
		{name: "one core", in: with(func(v *clientVerdict) { v.CPU, v.Cores = 0.93, 1 }), saturated: true, has: []string{"CPU 93 % of 1 core —"}},
		{name: "wait just below", in: with(func(v *clientVerdict) { v.CPUWait = 9900 * time.Microsecond })},
		{name: "starved", in: with(func(v *clientVerdict) { v.CPUWait = 12500 * time.Microsecond }), saturated: true,
			has: []string{"waited 12.5 ms for a CPU on average", "taskset"}, lacks: []string{"keep 20 % idle", "CPU 50"}},
		{name: "lag just below", in: with(func(v *clientVerdict) { v.LagP99 = 9 * ms })},
		{name: "lagged", in: with(func(v *clientVerdict) { v.LagP99 = 10 * ms }), saturated: true,
			has: []string{"lag p99 10 ms", "keep 20 % idle"}, lacks: []string{"CPU"}},
		{name: "dropped", in: with(func(v *clientVerdict) { v.Dropped = 120 }), saturated: true,
			has: []string{"120 arrivals dropped (all 50 VUs busy)", "not all the load asked for was sent", "raise maxVUs"}, lacks: []string{"queueing", "keep 20 %"}},
		{name: "dropped, VUs unknown", in: with(func(v *clientVerdict) { v.Dropped, v.VUs = 1, 0 }), saturated: true, has: []string{"1 arrivals dropped (no VU free)"}},
		{name: "simulated", in: with(func(v *clientVerdict) { v.CPU, v.Simulated = 0.9, true }), saturated: true,
			has: []string{"CPU 90 %", "with --mock the simulator runs in this process"}},
		{name: "simulated, dropped only", in: with(func(v *clientVerdict) { v.Dropped, v.Simulated = 3, true }), saturated: true,
			lacks: []string{"--mock"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := c.in
			v.judge()
			if v.Saturated != c.saturated || (v.Warning != "") != c.saturated {
				t.Fatalf("saturated %v, warning %q: want saturated %v", v.Saturated, v.Warning, c.saturated)
			}
			for _, s := range c.has {
				if !strings.Contains(v.Warning, s) {
					t.Errorf("%q lacks %q", v.Warning, s)
				}
			}
			for _, s := range c.lacks {
				if strings.Contains(v.Warning, s) {
					t.Errorf("%q has %q", v.Warning, s)
				}
			}
		})
	}
}

// All the evidence at once, in one line, in a fixed order; a merged run's names its piece.
// A short run's lag is judged on its second-worst second, a long one's on its p99.
func TestLagPercentile(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		seconds float64
		want    float64
	}{{0, 99}, {1, 99}, {2, 25}, {10, 85}, {100, 98.5}, {150, 99}, {3600, 99}} {
		if got := lagPercentile(c.seconds); got != metrics.Percentile(c.want) {
			t.Errorf("lagPercentile(%v) = %+v, want p(%v)", c.seconds, got, c.want)
		}
	}
}

func TestClientWarningLine(t *testing.T) {
	t.Parallel()
	v := clientVerdict{CPU: 0.934, Cores: 1, CPUWait: 11 * time.Millisecond, LagP99: 41 * time.Millisecond, Dropped: 120, VUs: 50}
	v.judge()
	want := "WARNING client saturated: CPU 93 % of 1 core, waited 11.0 ms for a CPU on average, lag p99 41 ms, 120 arrivals dropped (all 50 VUs busy)" +
		" — latencies include the client's own queueing and not all the load asked for was sent;" +
		" keep 20 % idle: more cores, fewer VUs, or split the run over machines (--execution-segment);" +
		" raise maxVUs if the client, not the server, should absorb the arrivals"
	if v.Warning != want {
		t.Errorf("line\n%s\nwant\n%s", v.Warning, want)
	}
	if got := v.line("b.ndjson"); !strings.HasPrefix(got, "WARNING client saturated (b.ndjson): CPU 93 %") {
		t.Errorf("a piece's line: %s", got)
	}
}

// fixedLoad is a client sampler that reports the same load every second.
func fixedLoad(l engine.ClientLoad) engine.ClientSampler {
	return func() engine.ClientLoad { return l }
}

// filePoints counts the file's Point lines of each metric.
func filePoints(t *testing.T, path string) map[string]int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var line struct{ Type, Metric string }
		if err := json.Unmarshal(sc.Bytes(), &line); err == nil && line.Type == "Point" {
			n[line.Metric]++
		}
	}
	return n
}

// A client set to be saturated (by its sampler: nothing burns a CPU) ends its summary with
// the one warning line, writes the verdict in the End line and its readings as points,
// keeps them out of METRICS, and omnik report prints the same summary from the file.
// An idle one prints nothing new.
func TestSaturatedClientIsWarnedAndReportedAgain(t *testing.T) {
	t.Parallel()
	src := `import omni from 'omni';
export const options = { scenarios: { s: { executor: 'constant-vus', vus: 1, duration: '2300ms' } } };
export default async function () { await omni.chat({ messages: [{ role: 'user', content: 'ping' }], modalities: ['text'], max_tokens: 4 }); }
`
	const want = "WARNING client saturated: CPU 93 % of 1 core, lag p99 41 ms — latencies include the client's own queueing;" +
		" keep 20 % idle: more cores, fewer VUs, or split the run over machines (--execution-segment);" +
		" with --mock the simulator runs in this process and its work counts as the client's"
	for _, c := range []struct {
		name      string
		load      engine.ClientLoad
		saturated bool
	}{
		{"saturated", engine.ClientLoad{CPU: 0.93, CPUOK: true, Wait: 2 * time.Millisecond, WaitOK: true, Lag: 41 * time.Millisecond}, true},
		{"idle", engine.ClientLoad{CPU: 0.1, CPUOK: true, Wait: 50 * time.Microsecond, WaitOK: true, Lag: time.Millisecond}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			live := runScript(t, src, Options{Outs: []string{"json=out.ndjson"}, SummaryExport: "s.json", clientSampler: fixedLoad(c.load), clientCores: 1}, nil)
			if live.code != 0 {
				t.Fatalf("exit %d:\n%s\n%s", live.code, live.stdout, live.log)
			}
			lines := strings.Split(strings.TrimRight(live.stdout, "\n"), "\n")
			last := strings.TrimSpace(lines[len(lines)-1])
			if got := strings.Count(live.stdout, "WARNING"); c.saturated && (last != want || got != 1) || !c.saturated && got != 0 {
				t.Errorf("%d warnings, the summary ends with\n%s\nwant it saturated %v:\n%s", got, last, c.saturated, want)
			}
			if strings.Contains(live.stdout, "client_") {
				t.Errorf("the client's metrics are in the text summary:\n%s", live.stdout)
			}
			file := filepath.Join(live.dir, "out.ndjson")
			_, _, end := fileLines(t, file)
			cv := end.Client
			if end.Schema != "omnik.run/v1.5" || cv == nil || cv.Saturated != c.saturated || cv.Cores != 1 ||
				math.Abs(cv.CPU-c.load.CPU) > 1e-9 || cv.LagP99 != c.load.Lag || (cv.CPUWait-c.load.Wait).Abs() > time.Microsecond {
				t.Fatalf("End line %s, client %+v: want the sampler's readings", end.Schema, cv)
			}
			if c.saturated && cv.Warning != want {
				t.Errorf("End line's warning %q", cv.Warning)
			}
			points := filePoints(t, file)
			for _, m := range []string{"client_cpu", "client_cpu_wait", "client_lag"} {
				if points[m] < 2 {
					t.Errorf("%d %s points in the file: want one a second of the 2.3 s", points[m], m)
				}
			}
			ex := readExport(t, filepath.Join(live.dir, "s.json"))
			if got := ex.Metrics["client_cpu"].Values["avg"]; math.Abs(got-c.load.CPU) > 1e-9 {
				t.Errorf("the JSON summary's client_cpu avg %v, want %v", got, c.load.CPU)
			}
			if got := ex.Metrics["client_lag"].Values["max"]; got != 1000*c.load.Lag.Seconds() {
				t.Errorf("the JSON summary's client_lag max %v ms", got)
			}
			raw, _ := os.ReadFile(filepath.Join(live.dir, "s.json"))
			if got := strings.Contains(string(raw), `"warnings": [`); got != c.saturated {
				t.Errorf("the JSON summary has warnings %v, want %v", got, c.saturated)
			}
			offline := reportFile(t, file, ReportOptions{})
			if offline.stdout != live.stdout {
				t.Errorf("re-report differs:\n%s", lineDiff(live.stdout, offline.stdout))
			}
		})
	}
}

// Without the text summary the warning still reaches the log; a caller that says the
// client's limits itself (omnik sweep) keeps it out.
func TestSaturationWarningWithoutASummary(t *testing.T) {
	t.Parallel()
	src := `import { sleep } from 'omnik';
export const options = { scenarios: { s: { executor: 'constant-vus', vus: 1, duration: '1200ms' } } };
export default function () { sleep(0.05); }
`
	load := fixedLoad(engine.ClientLoad{CPU: 0.99, CPUOK: true})
	for _, c := range []struct {
		name      string
		o         Options
		logged    bool
		printedTo string
	}{
		{"no summary", Options{NoSummary: true}, true, ""},
		{"the caller says it", Options{NoSummary: true, NoVerdictLine: true}, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.o.clientSampler, c.o.clientCores = load, 2
			r := runScript(t, src, c.o, nil)
			if got := strings.Contains(r.log, "WARNING client saturated: CPU 99 % of 2 cores"); got != c.logged || r.stdout != "" {
				t.Errorf("logged %v, want %v; stdout %q; log:\n%s", got, c.logged, r.stdout, r.log)
			}
		})
	}
}

// A file of an older minor version has no client in its End line: its summary warns of
// nothing.
func TestReportOfAFileWithoutAClientVerdict(t *testing.T) {
	t.Parallel()
	v := clientVerdict{CPU: 0.95, Cores: 2}
	v.judge()
	rp := &reporter{pieces: []*pieceRead{{path: "a", end: &runEnd{}}, {path: "b", end: &runEnd{Client: &v}}, {path: "c"}}}
	got := rp.clientWarnings()
	if len(got) != 1 || !strings.HasPrefix(got[0], "WARNING client saturated (b): CPU 95 % of 2 cores") {
		t.Errorf("warnings %q: want piece b's alone, naming it", got)
	}
	rp.pieces = rp.pieces[:1]
	if got := rp.clientWarnings(); len(got) != 0 {
		t.Errorf("warnings %q of a file without a verdict", got)
	}
}

// Arrivals that found every VU busy make the client saturated, with the run's VU count;
// iterations left when maxDuration ended are dropped too, but no VU was missing for them.
func TestDroppedArrivalsWarnButWorkLeftDoesNot(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, scenario string
		warned         bool
	}{
		{"arrivals without a VU", `{ executor: 'constant-arrival-rate', rate: 50, duration: '500ms', preAllocatedVUs: 1, maxVUs: 1 }`, true},
		{"work left at maxDuration", `{ executor: 'per-vu-iterations', vus: 1, iterations: 100, maxDuration: '300ms', gracefulStop: '0s' }`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			src := `import { sleep } from 'omnik';
export const options = { scenarios: { s: ` + c.scenario + ` } };
export default function () { sleep(0.1); }
`
			idle := fixedLoad(engine.ClientLoad{CPU: 0.1, CPUOK: true})
			r := runScript(t, src, Options{Outs: []string{"json=out.ndjson"}, clientSampler: idle, clientCores: 1}, nil)
			_, _, end := fileLines(t, filepath.Join(r.dir, "out.ndjson"))
			if !strings.Contains(r.stdout, "dropped_iterations") {
				t.Fatalf("nothing was dropped:\n%s", r.stdout)
			}
			if end.Client == nil || end.Client.Saturated != c.warned || strings.Contains(r.stdout, "WARNING") != c.warned {
				t.Fatalf("End line's client %+v, want saturated %v; summary:\n%s", end.Client, c.warned, r.stdout)
			}
			// 25 arrivals in 500 ms, a VU free for one in 5.
			if c.warned && (end.Client.Dropped < 10 || !strings.Contains(r.stdout, " arrivals dropped (its one VU busy)")) {
				t.Errorf("%d dropped:\n%s", end.Client.Dropped, r.stdout)
			}
		})
	}
}
