package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// omnik compare's exit codes: 0 when no gate is crossed, 99 when one is, 104 for a gate
// that does not parse and for an input that is not a run; --json writes the verdicts.
func TestCompareExitCodes(t *testing.T) {
	t.Parallel()
	testdata, err := filepath.Abs(filepath.Join("..", "..", "compare", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	base, next := filepath.Join(testdata, "base.json"), filepath.Join(testdata, "new.json")
	dir := writeFiles(t, map[string]string{"notes.txt": "hello\n"})

	same := runOmnik(t, dir, nil, "compare", "--fail-on", "ttft.p99 > +10%", base, base)
	expect{code: 0, stdout: []string{"serving.p99_ttft_ms", "✓ ttft.p99 > +10%"}, notStderr: []string{"level="}}.check(t, same)

	crossed := runOmnik(t, dir, nil, "compare", "--fail-on", "ttft.p99 > +10%", "--fail-on", "e2el.p99 > 1s", "--only", "ttft", "--json", "out/c.json", base, next)
	expect{code: 99, stdout: []string{"✗ ttft.p99 > +10%", "✓ e2el.p99 > 1s"}, notStdout: []string{"e2el.avg"},
		stderr: []string{"gates crossed: ttft.p99 > +10%: 84.19ms → 94.30ms", "load differs: scenario chat: constant-vus vus 3 → 6"}}.check(t, crossed)
	var out struct {
		Gates []struct{ Crossed bool } `json:"gates"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "out", "c.json"))
	if err == nil {
		err = json.Unmarshal(b, &out)
	}
	if err != nil || len(out.Gates) != 2 || !out.Gates[0].Crossed || out.Gates[1].Crossed {
		t.Errorf("--json: %v %+v", err, out)
	}

	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"--fail-on", "ttft.p99 >> 1", base, next}, `error: --fail-on "ttft.p99 >> 1" at col 11: expected a number`},
		{[]string{"--fail-on", "tft.p99 > 1", base, next}, "neither run has tft.p99 (did you mean ttft.p99"},
		{[]string{"notes.txt", next}, "error: notes.txt: neither a result file"},
		{[]string{base}, "accepts 2 arg(s)"},
	} {
		r := runOmnik(t, dir, nil, append([]string{"compare"}, tc.args...)...)
		expect{code: 104, stderr: []string{tc.stderr}, notStdout: []string{"serving."}}.check(t, r)
	}
}
