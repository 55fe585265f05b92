package testrun

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/engine"
)

// splitFile deals a live result file's records at random over n pieces, each a file with
// the Run header (its piece i/n:(i+1)/n), every Metric and Point line kept in piece 0,
// and the End line. shift moves piece i's origin i·shift earlier and its timeline as
// much later, as a piece that loaded earlier and waited longer has it: the merged
// timeline keeps its shape.
func splitFile(t *testing.T, f resultFile, n int, seed uint64, shift time.Duration, edit func(i int, piece map[string]any)) []string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	pieces := make([][]string, n)
	for _, line := range f.lines {
		var entry map[string]any
		if err := json.Unmarshal([]byte(line), &entry); err != nil {
			t.Fatal(err)
		}
		switch entry["type"] {
		case "Run", "End":
			for i := range pieces {
				var own map[string]any // each piece edits its own copy
				_ = json.Unmarshal([]byte(line), &own)
				pieces[i] = append(pieces[i], shifted(t, own, i, n, time.Duration(i)*shift, edit))
			}
		case "Record":
			i := rng.IntN(n)
			pieces[i] = append(pieces[i], shifted(t, entry, i, n, time.Duration(i)*shift, nil))
		case "Metric":
			for i := range pieces {
				pieces[i] = append(pieces[i], line)
			}
		default:
			pieces[0] = append(pieces[0], line)
		}
	}
	var paths []string
	for i, lines := range pieces {
		path := filepath.Join(f.dir, fmt.Sprintf("piece-%d-%d.ndjson", seed, i))
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	return paths
}

// shifted is one entry of piece i of n, its origin d earlier on the wall clock.
func shifted(t *testing.T, entry map[string]any, i, n int, d time.Duration, edit func(int, map[string]any)) string {
	t.Helper()
	data := entry["data"].(map[string]any)
	switch entry["type"] {
	case "Run":
		origin, _ := time.Parse(time.RFC3339Nano, data["origin"].(string))
		data["origin"] = origin.Add(-d).Format(time.RFC3339Nano)
		piece := data["piece"].(map[string]any)
		piece["segment"], piece["slots"], piece["run_id"] = fmt.Sprintf("%d/%d:%d/%d", i, n, i+1, n), n, "run-1"
		if edit != nil {
			edit(i, piece)
		}
	case "End":
		// The client's verdict is of the one process that ran them all, which no piece was.
		delete(data, "client")
		for _, key := range []string{"scenario_starts_ns", "schedule_ends_ns"} {
			if m, ok := data[key].(map[string]any); ok {
				for k, v := range m {
					m[k] = v.(float64) + float64(d)
				}
			}
		}
	case "Record":
		data["offset_ms"] = data["offset_ms"].(float64) + float64(d)/float64(time.Millisecond)
	}
	b, err := json.Marshal(entry)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mergeFiles(t *testing.T, o MergeOptions) (engine.ExitCode, string, string, error) {
	t.Helper()
	var stdout bytes.Buffer
	log, logs := testLog()
	o.Stdout, o.Log = &stdout, log
	code, err := Merge(o)
	return code, stdout.String(), logs.String(), err
}

// The merge of a run's records dealt at random over pieces prints the run's own summary,
// byte for byte below the merge line: the Serving and Stage blocks, checks, METRICS and
// thresholds, on the exact path and past the trend budget (HDR), with the pieces' clocks
// apart or not.
func TestMergeOfARandomSplitIsTheWholeRun(t *testing.T) {
	t.Parallel()
	for _, budget := range []int{0, 40} {
		live := runScript(t, mixedScript, Options{Outs: []string{"json=out.ndjson"}, TrendBudget: budget}, nil)
		b, err := os.ReadFile(filepath.Join(live.dir, "out.ndjson"))
		if err != nil {
			t.Fatal(err)
		}
		f := resultFile{t: t, dir: live.dir, lines: strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"), live: live}
		// The run's summary, but for a saturation warning of its client (the pieces have none).
		whole := reportFile(t, splitFile(t, f, 1, 99, 0, nil)[0], ReportOptions{})
		for seed, shift := range []time.Duration{0, 0, 1500 * time.Millisecond} {
			paths := splitFile(t, f, 1+seed*3, uint64(seed), shift, nil)
			code, stdout, logs, err := mergeFiles(t, MergeOptions{Paths: paths})
			if err != nil || code != whole.code || logs != "" {
				t.Fatalf("budget %d, %d pieces: exit %d, %v, logs %s", budget, len(paths), code, err, logs)
			}
			head, body, _ := strings.Cut(stdout, "\n\n")
			if !strings.HasPrefix(head, fmt.Sprintf("omnik merge: %d pieces", len(paths))) {
				t.Errorf("merge line %q", head)
			}
			if body != whole.stdout {
				t.Errorf("budget %d, %d pieces, shift %v: merged summary differs from the run's:\n%s\nwant:\n%s", budget, len(paths), shift, body, whole.stdout)
			}
		}
	}
}

// Merge judges the thresholds once on all the data: a --threshold that no piece alone
// crosses fails the merged run.
func TestMergeJudgesThresholdsOnceOnTheMergedData(t *testing.T) {
	t.Parallel()
	f := liveFile(t)
	whole := reportFile(t, filepath.Join(f.dir, "out.ndjson"), ReportOptions{})
	n := printed(t, whole.stdout, "Successful requests:")
	paths := splitFile(t, f, 4, 7, 0, nil)
	limit := fmt.Sprintf("requests.count < %d", int(n))
	for _, p := range paths {
		// A piece alone may fail the script's own thresholds (no chat request: no ttft).
		if r := reportFile(t, p, ReportOptions{Thresholds: []string{limit}}); !strings.Contains(r.stdout, "✓ requests.count < ") {
			t.Fatalf("%s alone crosses %s:\n%s\n%s", p, limit, r.stdout, r.log)
		}
	}
	code, stdout, _, err := mergeFiles(t, MergeOptions{Paths: paths, Thresholds: []string{limit}})
	if err != nil || code != engine.ExitThresholdsFailed || !strings.Contains(stdout, "✗ requests.count < ") {
		t.Errorf("merged: exit %d, %v; want 99 and the crossed threshold:\n%s", code, err, stdout)
	}
}

// Pieces that do not make one run are refused with the files named, before anything
// prints.
func TestMergeRefusesPiecesThatAreNotOneRun(t *testing.T) {
	t.Parallel()
	f := liveFile(t)
	set := func(key string, value any, which int) func(int, map[string]any) {
		return func(i int, piece map[string]any) {
			if i == which {
				piece[key] = value
			}
		}
	}
	tests := []struct {
		name  string
		paths func() []string
		want  string
	}{
		{"another script", func() []string { return splitFile(t, f, 2, 11, 0, set("script_sha256", "beef", 1)) }, "ran different scripts"},
		{"another run", func() []string { return splitFile(t, f, 2, 12, 0, set("run_id", "other", 1)) }, "different runs"},
		{"another record schema", func() []string { return splitFile(t, f, 2, 13, 0, set("record_schema", "omnik.record/v2", 1)) }, "records of different schemas"},
		{"another split", func() []string { return splitFile(t, f, 2, 14, 0, set("slots", 4, 1)) }, "split the test differently"},
		{"a missing piece", func() []string { return splitFile(t, f, 4, 15, 0, nil)[1:] }, "segments 0:1/4 are missing (1/4 of the test)"},
		{"two missing pieces", func() []string { p := splitFile(t, f, 4, 16, 0, nil); return []string{p[0], p[2]} },
			"segments 1/4:1/2, 3/4:1 are missing (1/2 of the test)"},
		{"an overlap", func() []string {
			return splitFile(t, f, 2, 17, 0, func(i int, piece map[string]any) {
				if i == 1 {
					piece["segment"], piece["slots"] = "1/4:1", 4
				} else {
					piece["slots"] = 4
				}
			})
		}, "overlap"},
		{"other options", func() []string { return splitFile(t, f, 2, 18, 0, set("options_sha256", "cafe", 1)) }, "different options"},
		{"another start", func() []string { return splitFile(t, f, 2, 19, 0, set("start_at", "2026-12-01T12:00:00Z", 1)) }, "different --start-at"},
		{"a day apart", func() []string { return splitFile(t, f, 2, 20, 25*time.Hour, nil) }, "apart: not one run"},
		{"an interrupted piece", func() []string {
			return endEdited(t, splitFile(t, f, 2, 21, 0, nil), 1, `"interrupted":true,"stop_reason":"signal"`)
		}, "was interrupted (signal): its segment is incomplete"},
		{"a killed piece", func() []string { return endEdited(t, splitFile(t, f, 2, 22, 0, nil), 0, "") }, "has no End line"},
		{"a damaged End line", func() []string {
			paths := splitFile(t, f, 2, 23, 0, nil)
			b, _ := os.ReadFile(paths[1])
			b = regexp.MustCompile(`"duration_ns":\d+`).ReplaceAll(b, []byte(`"duration_ns":-5`))
			_ = os.WriteFile(paths[1], b, 0o644)
			return paths
		}, "has no End line"},
		{"a file without a piece", func() []string {
			return []string{f.write("old.ndjson", func(ls []string) []string {
				ls[0] = strings.Replace(ls[0], `"piece":`, `"old_piece":`, 1)
				return ls
			})}
		}, "has no piece"},
		{"an empty directory", func() []string { return []string{t.TempDir()} }, "no result files"},
	}
	for _, tc := range tests {
		code, stdout, _, err := mergeFiles(t, MergeOptions{Paths: tc.paths()})
		if err == nil || !strings.Contains(err.Error(), tc.want) || engine.ExitCodeOf(err) != engine.ExitInvalidConfig || stdout != "" {
			t.Errorf("%s: exit %d, %v (exit %d), printed %q; want %q, exit 104, nothing printed", tc.name, code, err, engine.ExitCodeOf(err), stdout, tc.want)
		}
	}
}

// endEdited adds fields to piece i's End line, or drops the line when fields is "".
func endEdited(t *testing.T, paths []string, i int, fields string) []string {
	t.Helper()
	b, err := os.ReadFile(paths[i])
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if strings.Contains(l, `"type":"End"`) {
			if fields == "" {
				continue
			}
			l = strings.Replace(l, `"data":{`, `"data":{`+fields+",", 1)
		}
		out = append(out, l)
	}
	if err := os.WriteFile(paths[i], []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return paths
}

// --partial merges an interrupted piece, saying so; without a run id the merge warns.
func TestMergePartialSaysWhatIsIncomplete(t *testing.T) {
	t.Parallel()
	f := liveFile(t)
	paths := endEdited(t, splitFile(t, f, 2, 30, 0, nil), 1, `"interrupted":true`)
	code, stdout, logs, err := mergeFiles(t, MergeOptions{Paths: paths, Partial: true})
	if err != nil || code != 0 || !strings.Contains(logs, "was interrupted: its segment is incomplete, merged as it is") || !strings.Contains(stdout, "Serving Benchmark Result") {
		t.Errorf("exit %d, %v, logs %s", code, err, logs)
	}
	noID := splitFile(t, f, 2, 31, 0, func(_ int, piece map[string]any) { delete(piece, "run_id") })
	if _, _, logs, err := mergeFiles(t, MergeOptions{Paths: noID}); err != nil || !strings.Contains(logs, "no run id") {
		t.Errorf("without run ids: %v, logs %s", err, logs)
	}
}
