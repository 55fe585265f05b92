package js

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/metrics"
)

// blockSection is a summary section with a fixed text block.
type blockSection struct{}

func (blockSection) Name() string { return "omni" }
func (blockSection) Text(w io.Writer) error {
	_, err := io.WriteString(w, "============ Serving Benchmark Result ============\n")
	return err
}
func (blockSection) JSON() any { return map[string]any{"all": map[string]any{"completed": 3}} }

func testSummary(noColor bool) *metrics.Summary {
	observed := 12.5
	checks := []metrics.CheckSummary{{Name: "ok", Path: "::g", Passes: 3, Fails: 1}}
	return &metrics.Summary{
		Schema:            metrics.SummarySchema,
		TestRunDurationMs: 1000,
		Options:           metrics.SummaryOptions{TrendStats: []metrics.Stat{{Name: "avg"}, metrics.Percentile(99)}, TimeUnit: "ms", NoColor: noColor},
		Thresholds:        []metrics.ThresholdSummary{{Metric: "e2el", Expression: "p(99)<100", Stat: "p(99)", OK: true, Observed: &observed}},
		Checks:            checks,
		RootGroup: &metrics.GroupSummary{Groups: []*metrics.GroupSummary{
			{Name: "g", Path: "::g", Groups: []*metrics.GroupSummary{}, Checks: checks}}, Checks: []metrics.CheckSummary{}},
		Metrics: map[string]*metrics.MetricSummary{
			"e2el":     {Type: "trend", Contains: "time", Values: map[string]float64{"avg": 10, "p(99)": 12.5}},
			"requests": {Type: "counter", Contains: "default", Values: map[string]float64{"count": 3, "rate": 3}},
		},
		Sections: []metrics.Section{blockSection{}},
	}
}

func handleSummaryOutput(t *testing.T, body string, s *metrics.Summary) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.js")
	src := "import { textSummary } from 'omnik/summary';\nimport * as omnik from 'omnik';\nexport default function () {}\nexport function handleSummary(data) { " + body + " }\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r, _ := load(t, path)
	out, ok, err := r.HandleSummary(context.Background(), s, 10*time.Second)
	if err != nil || !ok {
		t.Fatalf("handleSummary = %v, %v", ok, err)
	}
	return string(out["stdout"])
}

func TestTextSummaryRendersWhatTheCLIPrints(t *testing.T) {
	t.Parallel()
	var want strings.Builder
	if err := testSummary(true).WriteText(&want); err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{
		"return { stdout: textSummary(data) };",
		"return { stdout: omnik.textSummary(data, { indent: ' ', enableColors: false }) };",
	} {
		if got := handleSummaryOutput(t, body, testSummary(true)); got != want.String() {
			t.Errorf("%s\ngot:\n%s\nwant:\n%s", body, got, want.String())
		}
	}
}

func TestTextSummaryFollowsEditsAndColours(t *testing.T) {
	t.Parallel()
	got := handleSummaryOutput(t, "delete data.sections.omni; delete data.metrics.requests; return { stdout: textSummary(data, { enableColors: true }) };", testSummary(true))
	if strings.Contains(got, "Serving Benchmark Result") || strings.Contains(got, "requests") {
		t.Errorf("deleted section or metric still rendered:\n%s", got)
	}
	if !strings.Contains(got, "e2el") || !strings.Contains(got, "\x1b[") {
		t.Errorf("want the remaining metric, coloured:\n%q", got)
	}
	plain := handleSummaryOutput(t, "return { stdout: textSummary(data) };", testSummary(false))
	if !strings.Contains(plain, "\x1b[") {
		t.Errorf("data.options.noColor false: want colours by default:\n%q", plain)
	}
}

// What a script nulls in data is absent to textSummary, never a crash after the run.
func TestTextSummaryOfNulledDataDoesNotCrash(t *testing.T) {
	t.Parallel()
	for _, edit := range []string{"data.root_group = null;", "data.metrics.e2el = null;", "data.root_group.groups = [null];",
		"data.root_group.groups[0].groups = [null, null];", "data.metrics = null; data.thresholds = null;"} {
		got := handleSummaryOutput(t, edit+" return { stdout: textSummary(data) };", testSummary(true))
		if !strings.Contains(got, "Serving Benchmark Result") {
			t.Errorf("%s: got:\n%s", edit, got)
		}
	}
}
