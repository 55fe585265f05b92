package compare

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// fixtures compares the two summary exports in testdata, as omnik compare would with
// the gates given.
func fixtures(t *testing.T, gates ...string) (*Comparison, []GateResult) {
	t.Helper()
	base, err := Load(filepath.Join("testdata", "base.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	next, err := Load(filepath.Join("testdata", "new.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := Compare(base, next)
	parsed := make([]Gate, len(gates))
	for i, g := range gates {
		if parsed[i], err = ParseGate(g); err != nil {
			t.Fatal(err)
		}
	}
	results, err := c.Judge(parsed)
	if err != nil {
		t.Fatal(err)
	}
	return c, results
}

var fixtureGates = []string{"ttft.p99 > +10%", "requests_failed.rate > 0.01", "serving.request_throughput < -5%",
	"serving[chat].p99_ttft_ms > +50ms", "audio_rtf.p99 > +5%", "dropped_iterations.count > 5"}

// The table of two runs: every group, changes with their sign and percentage, rows one
// run lacks, and the gates.
func TestTextGolden(t *testing.T) {
	t.Parallel()
	c, results := fixtures(t, fixtureGates...)
	var b bytes.Buffer
	if err := c.WriteText(&b, results, TextOptions{NoColor: true}); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "compare.golden")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("the table differs from %s (go test ./compare -update rewrites it):\n%s", golden, b.String())
	}
}

// Improvements are green, regressions red, neutral changes and unchanged rows plain.
func TestTextColours(t *testing.T) {
	t.Parallel()
	c, _ := fixtures(t)
	var b bytes.Buffer
	if err := c.Filter([]string{"serving.p99_e2el_ms", "serving.p99_ttft_ms", "serving.max_concurrent_requests", "serving.total_input_tokens"}).WriteText(&b, nil, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	const green, red = "\x1b[32m", "\x1b[31m"
	for key, want := range map[string]string{"serving.p99_e2el_ms": green, "serving.p99_ttft_ms": red, "serving.max_concurrent_requests": "", "serving.total_input_tokens": ""} {
		line := lineOf(b.String(), "  "+key+" ")
		if got := strings.Contains(line, green) || strings.Contains(line, red); want == "" && got || want != "" && !strings.Contains(line, want) {
			t.Errorf("%s: %q; want colour %q", key, line, want)
		}
	}
}

func lineOf(text, prefix string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// The JSON form holds what the table does, an infinite change as a string, and the
// gates' verdicts.
func TestJSON(t *testing.T) {
	t.Parallel()
	c, results := fixtures(t, fixtureGates...)
	var b bytes.Buffer
	if err := c.Filter([]string{"serving.failed", "ttft.p99", "audio_rtf.p99"}).WriteJSON(&b, results); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Schema   string
		Warnings []Warning
		Rows     []map[string]any
		Gates    []map[string]any
	}
	if err := json.Unmarshal(b.Bytes(), &out); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if out.Schema != JSONSchema || len(out.Warnings) != len(c.Warnings) || len(out.Gates) != len(fixtureGates) {
		t.Errorf("schema %q, %d warnings, %d gates:\n%s", out.Schema, len(out.Warnings), len(out.Gates), b.String())
	}
	rows := map[string]map[string]any{}
	for _, r := range out.Rows {
		rows[r["key"].(string)] = r
	}
	if r := rows["serving.failed"]; r["change_pct"] != "+Inf" || r["better"] != "lower" || r["change"] != 5.0 || r["verdict"] != "regressed" {
		t.Errorf("serving.failed: %v", r)
	}
	if r := rows["ttft.p99"]; r["unit"] != "ms" || r["error_bound"] != 0.001 || r["group"] != "METRICS" {
		t.Errorf("ttft.p99: %v", r)
	}
	if r := rows["audio_rtf.p99"]; r["new"] != nil || r["change"] != nil || r["base"] == nil {
		t.Errorf("audio_rtf.p99, only in BASE: %v", r)
	}
	if g := out.Gates[0]; g["crossed"] != true || g["key"] != "ttft.p99" {
		t.Errorf("first gate: %v", g)
	}
	if g := out.Gates[4]; g["no_data"] != true || g["observed"] != nil {
		t.Errorf("a gate on what NEW lacks: %v", g)
	}
}
