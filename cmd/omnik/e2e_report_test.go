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

// `omnik report` of the file a run wrote prints the run's summary byte for byte, with
// the same exit code: a mixed example, gzip-compressed.
func TestReportReprintsTheLiveSummary(t *testing.T) {
	t.Parallel()
	script, err := filepath.Abs(filepath.Join("..", "..", "examples", "scripts", "mixed-workload.js"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	live := runOmnik(t, dir, cleanEnv(), "run", "--mock", "--mock-speed", "4", "-q", "-e", "DURATION=2s",
		"--out", "json=out.ndjson.gz", script)
	expect{code: 0, stdout: []string{"Serving Benchmark Result (chat)", "METRICS"}}.check(t, live)
	offline := runOmnik(t, dir, cleanEnv(), "report", "out.ndjson.gz")
	if offline.stdout != live.stdout || offline.code != live.code || offline.stderr != "" {
		t.Errorf("omnik report differs from the live summary (exit %d, live %d; stderr %q):\n--- live ---\n%s\n--- report ---\n%s",
			offline.code, live.code, offline.stderr, live.stdout, offline.stdout)
	}
	// The flags reshape the blocks and judge more thresholds.
	reshaped := runOmnik(t, dir, cleanEnv(), "report", "--percentile-metrics", "e2el", "--metric-percentiles", "50",
		"--no-stage-summary", "--threshold", "e2el.max < 1", "--summary-export", "s.json", "out.ndjson.gz")
	expect{code: 99, stdout: []string{"P50 E2EL (ms):", "✗ e2el.max < 1"}, notStdout: []string{"Mean TTFT (ms):", "Stage Benchmark Result"}}.check(t, reshaped)
	if s := readSummaryExport(t, filepath.Join(dir, "s.json")); len(s.Thresholds) != 4 {
		t.Errorf("summary export of the report has %d thresholds, want the run's 3 and --threshold", len(s.Thresholds))
	}
}

// A run stopped by Ctrl-C re-reports what its live summary printed.
func TestReportOfAnInterruptedRun(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"script.js": `import omni from 'omni';
import exec from 'omnik/execution';
export const options = { vus: 3, duration: '60s', thresholds: { ttft: ['p(99) < 60000'] } };
export default async function () {
  await omni.chat({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 16 });
  if (exec.vu.idInTest === 1 && exec.vu.iterationInInstance === 5) console.log('RUNNING');
}
`})
	p := startOmnik(t, dir, cleanEnv(), "run", "--mock", "--mock-speed", "10", "-q", "--out", "json=out.ndjson", "script.js")
	p.waitFor("RUNNING", 30*time.Second)
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	live := p.wait()
	expect{code: 105, stdout: []string{"✓ p(99) < 60000", "Successful requests:"}}.check(t, live)
	offline := runOmnik(t, dir, cleanEnv(), "report", "out.ndjson")
	expect{code: 0}.check(t, offline)
	if offline.stdout != live.stdout {
		t.Errorf("the re-report of an interrupted run differs:\n--- live ---\n%s\n--- report ---\n%s", live.stdout, offline.stdout)
	}
}

func TestReportOfAFileThatIsNotResults(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"notes.txt": "hello\n"})
	r := runOmnik(t, dir, cleanEnv(), "report", "notes.txt")
	expect{code: 104, stderr: []string{"notes.txt: not an omnik result file"}, notStdout: []string{"METRICS"}}.check(t, r)
}

// A script that changes its iteration's metadata while records are written races with
// nothing: each record keeps a copy (the race detector of the binary under test watches).
func TestRecordsKeepTheirOwnMetadata(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"script.js": `import omni from 'omni';
import exec from 'omnik/execution';
export const options = { vus: 4, iterations: 24 };
export default async function () {
  const r = await omni.chat({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 });
  for (let i = 0; i < 50; i++) exec.vu.metrics.metadata['k' + i] = String(i);
  for (const s of Object.values(r.stages)) for (const v of Object.values(s)) if (Array.isArray(v)) v.push(1);
}
`})
	r := runOmnik(t, dir, cleanEnv(), "run", "--mock", "--mock-speed", "20", "-q", "--out", "json=out.ndjson", "script.js")
	expect{code: 0, stdout: []string{"Successful requests:                     24 "}}.check(t, r)
}

// `omnik report` ends the summary with the saturation warning the End line of the file
// holds, word for word, and a file whose client was not saturated warns of nothing.
func TestReportReprintsTheSaturationWarning(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"script.js": `export const options = { vus: 1, iterations: 3 };
export default function () {}
`})
	live := runOmnik(t, dir, cleanEnv(), "run", "-q", "--out", "json=out.ndjson", "script.js")
	expect{code: 0, stdout: []string{"iterations"}}.check(t, live)
	raw, err := os.ReadFile(filepath.Join(dir, "out.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	var end struct {
		Type string         `json:"type"`
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &end); err != nil || end.Type != "End" || end.Data["schema"] != "omnik.run/v1.5" {
		t.Fatalf("last line %s (%v): want a v1.5 End line", lines[len(lines)-1], err)
	}
	if c, ok := end.Data["client"].(map[string]any); !ok || c["saturated"] != false {
		t.Fatalf("End line's client %v: want a verdict, not saturated for 3 empty iterations", end.Data["client"])
	}
	const warning = "WARNING client saturated: CPU 97 % of 1 core — latencies include the client's own queueing; keep 20 % idle"
	end.Data["client"] = map[string]any{"cpu": 0.97, "cores": 1, "saturated": true, "warning": warning}
	edited, _ := json.Marshal(end)
	lines[len(lines)-1] = string(edited)
	if err := os.WriteFile(filepath.Join(dir, "saturated.ndjson"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	expect{code: 0, notStdout: []string{"WARNING"}}.check(t, runOmnik(t, dir, cleanEnv(), "report", "out.ndjson"))
	r := runOmnik(t, dir, cleanEnv(), "report", "saturated.ndjson")
	expect{code: 0}.check(t, r)
	if !strings.HasSuffix(r.stdout, "\n  "+warning+"\n\n") || strings.Count(r.stdout, "WARNING") != 1 {
		t.Errorf("the report does not end with the file's warning:\n%s", r.stdout)
	}
}
