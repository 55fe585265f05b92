package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunOutputs(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"script.js": passingScript})
	r := runOmnik(t, dir, nil, "run", "-q", "--out", "json=points.json", "--out", "csv=points.csv",
		"--summary-export", "summary.json", "script.js")
	expect{code: 0, stdout: []string{"METRICS"}}.check(t, r)

	t.Run("json lines parse and carry the custom metric", func(t *testing.T) {
		path := filepath.Join(dir, "points.json")
		if n := countNDJSON(t, path); n < 4 {
			t.Errorf("%d NDJSON lines, want at least one per iteration", n)
		}
		data, _ := os.ReadFile(path)
		if got := strings.Count(string(data), `"type":"Point","metric":"my_trend"`); got != 4 {
			t.Errorf("%d my_trend points, want 4", got)
		}
	})
	t.Run("csv has the header and rows", func(t *testing.T) {
		data, err := os.ReadFile(filepath.Join(dir, "points.csv"))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if lines[0] != "metric_name,timestamp,metric_value,tags,metadata" {
			t.Errorf("csv header = %q", lines[0])
		}
		if got := strings.Count(string(data), "\nmy_trend,"); got != 4 {
			t.Errorf("%d my_trend rows, want 4:\n%s", got, data)
		}
	})
	t.Run("summary export has the schema, thresholds and metrics", func(t *testing.T) {
		s := readSummaryExport(t, filepath.Join(dir, "summary.json"))
		if s.Schema != "omnik.summary/v1" {
			t.Errorf("schema = %q", s.Schema)
		}
		if len(s.Thresholds) != 2 {
			t.Fatalf("thresholds = %+v, want 2", s.Thresholds)
		}
		for _, th := range s.Thresholds {
			if !th.OK {
				t.Errorf("threshold %+v not ok", th)
			}
		}
		if got := s.Metrics["iterations"].Values["count"]; got != 4 {
			t.Errorf("iterations count = %v, want 4", got)
		}
		if got := s.Metrics["my_trend"].Values["max"]; got != 5 {
			t.Errorf("my_trend max = %v, want 5", got)
		}
	})
}

func TestRunSummaryExportRecordsFailedThreshold(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"script.js": trendScript("t.add(50);")})
	r := runOmnik(t, dir, nil, "run", "-q", "--summary-export", "summary.json", "script.js")
	expect{code: 99}.check(t, r)
	s := readSummaryExport(t, filepath.Join(dir, "summary.json"))
	if len(s.Thresholds) != 1 || s.Thresholds[0].OK || s.Thresholds[0].Metric != "my_trend" || s.Thresholds[0].Expression != "p(99) < 10" {
		t.Errorf("thresholds = %+v, want my_trend p(99) < 10 not ok", s.Thresholds)
	}
}

func TestRunHandleSummaryReplacesStdoutAndWritesFiles(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"script.js": `export const options = { iterations: 2 };
export default function () {}
export function handleSummary(data) {
  return {
    stdout: 'custom summary\n',
    stderr: 'to stderr\n',
    'reports/summary.txt': 'iterations=' + data.metrics.iterations.values.count,
  };
}
`})
	r := runOmnik(t, dir, nil, "run", "-q", "script.js")
	expect{code: 0, stderr: []string{"to stderr"}}.check(t, r)
	if r.stdout != "custom summary\n" {
		t.Errorf("stdout = %q, want only handleSummary's", r.stdout)
	}
	data, err := os.ReadFile(filepath.Join(dir, "reports", "summary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != "iterations=2" {
		t.Errorf("handleSummary file = %q", data)
	}
}

func TestRunNoSummary(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"script.js": passingScript})
	r := runOmnik(t, dir, nil, "run", "-q", "--no-summary", "--summary-export", "summary.json", "script.js")
	expect{code: 0}.check(t, r)
	if r.stdout != "" {
		t.Errorf("--no-summary printed:\n%s", r.stdout)
	}
	if s := readSummaryExport(t, filepath.Join(dir, "summary.json")); s.Schema != "omnik.summary/v1" {
		t.Errorf("--summary-export with --no-summary: schema %q", s.Schema)
	}
}

// An omni run into CSV says once what the CSV holds and raises no alarm for the records
// it leaves to the JSON output.
func TestCSVOfAnOmniRunSaysWhatItHoldsAndLosesNothing(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"script.js": `import omni from 'omni';
export const options = { vus: 1, iterations: 2 };
export default async function () { await omni.chat({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 }); }
`})
	r := runOmnik(t, dir, nil, "run", "-q", "--mock", "--out", "csv=points.csv", "script.js")
	expect{code: 0, stderr: []string{"holds metric points"}, notStderr: []string{"level=ERROR", "lost"}}.check(t, r)
	if n := strings.Count(r.stderr, "holds metric points"); n != 1 {
		t.Errorf("the CSV note is said %d times, want once", n)
	}
	data, err := os.ReadFile(filepath.Join(dir, "points.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(data), "\nttft,"); got != 2 {
		t.Errorf("%d ttft rows, want one per request (2)", got)
	}
}
