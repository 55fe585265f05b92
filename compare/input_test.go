package compare

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omnik-dev/omnik/engine"
)

// Inputs are told apart by their content; what is neither a result file nor a summary
// export is a usage error that says so.
func TestLoadTellsInputsApart(t *testing.T) {
	t.Parallel()
	summary, err := os.ReadFile(filepath.Join("testdata", "base.json"))
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(summary)
	zw.Close()
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content string
		want          string // an error fragment, "" for a summary export read
	}{
		{"summary.json.gz", gz.String(), ""},
		{"newer-minor.json", `{"schema":"omnik.summary/v1.3","metrics":{}}`, ""},
		{"notes.txt", "hello\n", "neither a result file (omnik run --out json=FILE) nor a summary export"},
		{"empty.json", "", "neither a result file"},
		{"other.json", `{"a":1}`, "neither a result file"},
		{"array.json", `[1,2]`, "neither a result file"},
		{"v2.json", `{"schema":"omnik.summary/v2"}`, `a summary of schema "omnik.summary/v2"; this omnik reads omnik.summary/v1`},
		{"broken.json", `{"schema":"omnik.summary/v1","metrics":[]}`, "not a summary export"},
		{"results.ndjson", `{"type":"Run","data":{"schema":"omnik.run/v9"}}` + "\n", `its Run header is "omnik.run/v9"`},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		in, err := Load(path, nil)
		switch {
		case tc.want == "" && (err != nil || in.Format != SummaryExport):
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.name)):
			t.Errorf("%s: %v; want an error naming the file with %q", tc.name, err, tc.want)
		case tc.want != "" && engine.ExitCodeOf(err) != engine.ExitInvalidConfig:
			t.Errorf("%s: exit %d, want 104", tc.name, engine.ExitCodeOf(err))
		}
	}
	if _, err := Load(filepath.Join(dir, "missing.json"), nil); engine.ExitCodeOf(err) != engine.ExitInvalidConfig {
		t.Errorf("a missing file: %v", err)
	}
}
