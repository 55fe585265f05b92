package main

import (
	"os"
	"path/filepath"
	"testing"
)

// omnik sweep maps its flags over options.sweep, runs each step against a fresh
// simulator and leaves files omnik report reads.
func TestSweepCommand(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"s.js": `import omni from 'omni';
export const options = { vus: 1, duration: '1s', sweep: { vus: [1, 64], warmup: '5s' } };
export default async function () { await omni.chat({ messages: [{ role: 'user', content: 'ping' }], modalities: ['text'], max_tokens: 4 }); }
`})
	r := runOmnik(t, dir, cleanEnv(), "sweep", "--mock", "--mock-speed", "20", "--vus", "1:2", "--warmup", "0s", "--step-duration", "400ms",
		"--threshold", "e2el.p(99) < 60000", "--out-dir", "out", "s.js")
	expect{code: 0, stdout: []string{"Sweep of vus for scenario \"default\": 0s warm-up + 400ms measured per step", "e2el.p(99) < 60000",
		"Answer: passes at 2 VUs; no load tried failed (2 steps in"},
		stderr: []string{"target is SIMULATED", "sweep: step 1: 1 VUs for 0s + 400ms", "sweep: step 2: pass at 2 VUs"}}.check(t, r)
	for _, f := range []string{"sweep.json", "step-01-vus-1.ndjson.gz", "step-02-vus-2.ndjson.gz"} {
		if _, err := os.Stat(filepath.Join(dir, "out", f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	rep := runOmnik(t, dir, cleanEnv(), "report", filepath.Join("out", "step-02-vus-2.ndjson.gz"))
	expect{code: 0, stdout: []string{"Serving Benchmark Result", "e2el.p(99) < 60000"}}.check(t, rep)
}

func TestSweepFlagErrors(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"s.js": `export const options = { vus: 1, duration: '1s', thresholds: { iterations: ['count > 0'] } };
export default function () {}
`})
	for _, args := range [][]string{
		{"--rate", "1:2", "--vus", "1:2"},
		{"--rate", "fast"},
		{"--vus", "1:2", "--precision", "five"},
		{"--vus", "1:2", "--factor", "1"},
		{"--vus", "1:2", "--duration", "1s"}, // no load flags: the sweep sets the load
	} {
		r := runOmnik(t, dir, cleanEnv(), append(append([]string{"sweep", "--mock", "--out-dir", "out"}, args...), "s.js")...)
		if r.code != 104 {
			t.Errorf("omnik sweep %v: exit %d, want 104\n%s", args, r.code, r)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Error("a refused sweep made its directory")
	}
}

// The example sweeps in its short mode and finds a load that passes.
func TestSweepExample(t *testing.T) {
	t.Parallel()
	script, err := filepath.Abs(filepath.Join("..", "..", "examples", "scripts", "sweep.js"))
	if err != nil {
		t.Fatal(err)
	}
	r := runOmnik(t, t.TempDir(), cleanEnv(), "sweep", "--mock", "-e", "WARMUP=200ms", "-e", "STEP=800ms", "--rate", "2:16", "--precision", "50%", "--out-dir", "out", script)
	expect{code: 0, stdout: []string{"Answer: passes at ", "ttft.p(99) < 900", "server:vllm:num_requests_waiting.max < 1"}}.check(t, r)
}
