package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRunSignalExits105WithSummaryAndCompleteFiles(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			testSignalStop(t, sig)
		})
	}
}

func testSignalStop(t *testing.T, sig syscall.Signal) {
	dir := writeFiles(t, map[string]string{"script.js": `import { Counter } from 'omnik/metrics';
import { sleep } from 'omnik';
import exec from 'omnik/execution';
const c = new Counter('my_count');
export const options = { vus: 2, duration: '30s', thresholds: { my_count: ['count > 0'] } };
export function teardown() { console.log('TEARDOWN_RAN'); }
export default function () {
  c.add(1);
  if (exec.vu.idInTest === 1 && exec.vu.iterationInInstance === 3) console.log('RUNNING');
  sleep(0.02);
}
`})
	p := startOmnik(t, dir, nil, "run", "-q", "--out", "json=out.json", "--summary-export", "summary.json", "script.js")
	p.waitFor("RUNNING", 20*time.Second)
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	r := p.wait()
	expect{code: 105,
		stdout: []string{"THRESHOLDS", "✓ count > 0", "METRICS", "my_count"},
		stderr: []string{"stopping: running iterations get their gracefulStop", "TEARDOWN_RAN"},
	}.check(t, r)
	// Not stopped, it would run its 30 s.
	if r.elapsed >= 30*time.Second {
		t.Errorf("interrupted run took %v of its 30s", r.elapsed)
	}
	if n := countNDJSON(t, filepath.Join(dir, "out.json")); n == 0 {
		t.Error("out.json has no lines")
	}
	s := readSummaryExport(t, filepath.Join(dir, "summary.json"))
	if s.Schema != "omnik.summary/v1" || len(s.Thresholds) != 1 || !s.Thresholds[0].OK {
		t.Errorf("summary export = %+v, want one passed threshold", s)
	}
}

func TestRunSecondSIGINTStopsAtOnceAndSkipsTeardown(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"script.js": `import { sleep } from 'omnik';
export const options = { scenarios: { s: { executor: 'constant-vus', vus: 1, duration: '30s', gracefulStop: '20s' } } };
export function teardown() { console.log('TEARDOWN_RAN'); }
export default function () { console.log('ITERATION_STARTED'); sleep(20); }
`})
	p := startOmnik(t, dir, nil, "run", "-q", "--out", "json=out.json", "script.js")
	p.waitFor("ITERATION_STARTED", 20*time.Second)
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	p.waitFor("Ctrl-C again", 5*time.Second)
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	r := p.wait()
	expect{code: 105, stdout: []string{"METRICS", "vus_max"}, stderr: []string{"stopping now"}, notStderr: []string{"TEARDOWN_RAN"}}.check(t, r)
	// Waiting for the iteration would take its 20 s sleep.
	if r.elapsed >= 20*time.Second {
		t.Errorf("hard stop took %v; the iteration sleeps 20s", r.elapsed)
	}
	countNDJSON(t, filepath.Join(dir, "out.json"))
}

// countNDJSON fails the test unless every line of path is a JSON object with a type, and
// returns the number of lines.
func countNDJSON(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		t.Errorf("%s does not end with a newline: the last line is cut", path)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for i, l := range lines {
		var v struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal([]byte(l), &v); err != nil || v.Type == "" {
			t.Fatalf("%s line %d is not a typed JSON object (%v): %s", path, i+1, err, l)
		}
	}
	return len(lines)
}

type summaryExport struct {
	Schema     string `json:"schema"`
	Thresholds []struct {
		Metric     string `json:"metric"`
		Expression string `json:"expression"`
		OK         bool   `json:"ok"`
	} `json:"thresholds"`
	Metrics map[string]struct {
		Type   string             `json:"type"`
		Values map[string]float64 `json:"values"`
	} `json:"metrics"`
	TestRunDurationMs float64 `json:"test_run_duration_ms"`
}

func readSummaryExport(t *testing.T, path string) summaryExport {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s summaryExport
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s
}
