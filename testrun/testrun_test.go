package testrun

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/mock"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// mixedScript is chat, speech and images side by side, each its own scenario.
const mixedScript = `import omni from 'omni';
import { check } from 'omnik';
export const options = {
  scenarios: {
    chat: { executor: 'per-vu-iterations', vus: 2, iterations: 6, exec: 'chat' },
    speech: { executor: 'per-vu-iterations', vus: 1, iterations: 5, exec: 'speech' },
    images: { executor: 'per-vu-iterations', vus: 1, iterations: 3, exec: 'image' },
  },
  thresholds: {
    ttft: ['p(99) < 60000'], 'requests_failed{scenario:chat}': ['rate < 0.5'],
    'stage_ttft{stage:thinker}': ['p(99) < 60000'], 'stage_serving_ttfo{stage:talker}': ['p(99) < 60000'],
  },
};
export async function chat() {
  const r = await omni.chat({ model: 'Qwen/Qwen3-Omni-30B-A3B-Instruct', messages: [{ role: 'user', content: 'Tell me about the tide.' }], max_tokens: 24 });
  check(r, { 'chat ok': (x) => x.ok });
}
export async function speech() {
  await omni.audio.speech({ model: 'Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice', input: 'The quick brown fox.', voice: 'vivian' });
}
export async function image() {
  await omni.images.generate({ model: 'ByteDance-Seed/BAGEL-7B-MoT', prompt: 'a lighthouse', size: '64x64' });
}
`

// run is one in-process run of src against a fresh simulator.
type run struct {
	outcome *Outcome
	code    engine.ExitCode
	stdout  string
	log     string
	dir     string
}

// logBuffer is a goroutine-safe log sink.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *logBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

func testLog() (*slog.Logger, *logBuffer) {
	var b logBuffer
	return slog.New(slog.NewTextHandler(&b, nil)), &b
}

// runScript runs src with o's options filled in: the script, a simulator at 20× speed,
// quiet, stdout and the log captured; outs name files in the run's directory.
func runScript(t *testing.T, src string, o Options, during func(*Test)) run {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "script.js")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	sim, err := mock.New(mock.WithSpeed(20))
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	log, logs := testLog()
	o.Script, o.Quiet, o.Stdout, o.Log, o.Omni.Mock = Script{Path: path}, true, &stdout, log, sim
	for i, out := range o.Outs {
		kind, file, _ := strings.Cut(out, "=")
		o.Outs[i] = kind + "=" + filepath.Join(dir, file)
	}
	if o.SummaryExport != "" {
		o.SummaryExport = filepath.Join(dir, o.SummaryExport)
	}
	test, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	defer test.Close()
	if during != nil {
		go during(test)
	}
	code, err := test.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := test.Run(context.Background()); err == nil {
		t.Error("a Test ran twice")
	}
	return run{outcome: test.Outcome(), code: code, stdout: stdout.String(), log: logs.String(), dir: dir}
}

// reportFile re-reports a file of a run.
func reportFile(t *testing.T, path string, o ReportOptions) run {
	t.Helper()
	var stdout bytes.Buffer
	log, logs := testLog()
	o.Path, o.Stdout, o.Log = path, &stdout, log
	code, err := Report(o)
	if err != nil {
		t.Fatalf("Report(%s): %v\n%s", path, err, logs)
	}
	return run{code: code, stdout: stdout.String(), log: logs.String()}
}

// The summary a result file re-reports (and Summarize returns) is the live run's, byte
// for byte: thresholds, checks, the Serving and Stage blocks of the run and of each
// scenario, METRICS. Below the exact budget and past it (HDR), plain and gzip.
func TestReportReproducesTheLiveSummary(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		budget int
		file   string
	}{{"exact", 0, "out.ndjson"}, {"past the budget", 40, "out.ndjson.gz"}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			live := runScript(t, mixedScript, Options{Outs: []string{"json=" + tc.file}, TrendBudget: tc.budget, SummaryExport: "live.json"}, nil)
			if live.code != 0 {
				t.Fatalf("live run exit %d:\n%s\n%s", live.code, live.stdout, live.log)
			}
			for _, want := range []string{"THRESHOLDS", "CHECKS", "Serving Benchmark Result (chat)", "Stage Benchmark Result", "METRICS"} {
				if !strings.Contains(live.stdout, want) {
					t.Errorf("the live summary lacks %q", want)
				}
			}
			if hdr := strings.Contains(live.stdout, "approximate, from HDR"); hdr != (tc.budget > 0) {
				t.Errorf("HDR note printed %v, want %v", hdr, tc.budget > 0)
			}
			offline := reportFile(t, filepath.Join(live.dir, tc.file), ReportOptions{SummaryExport: filepath.Join(live.dir, "report.json")})
			if offline.stdout != live.stdout || offline.code != live.code {
				t.Errorf("re-report differs (exit %d, live %d):\n%s", offline.code, live.code, lineDiff(live.stdout, offline.stdout))
			}
			a, _ := os.ReadFile(filepath.Join(live.dir, "live.json"))
			b, _ := os.ReadFile(filepath.Join(live.dir, "report.json"))
			if len(a) == 0 || string(a) != string(b) {
				t.Errorf("the re-report's --summary-export differs:\n%s", lineDiff(string(a), string(b)))
			}
			// What omnik compare reads of the file is that export too.
			s, err := Summarize(filepath.Join(live.dir, tc.file), nil)
			var c bytes.Buffer
			if err == nil {
				err = s.WriteJSON(&c)
			}
			if err != nil || c.String() != string(a) {
				t.Errorf("Summarize differs from --summary-export (%v):\n%s", err, lineDiff(string(a), c.String()))
			}
			if offline.log != "" {
				t.Errorf("re-report warned:\n%s", offline.log)
			}
		})
	}
}

// lineDiff lists the lines that differ.
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out strings.Builder
	for i := range max(len(al), len(bl)) {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			out.WriteString("- " + x + "\n+ " + y + "\n")
		}
	}
	return out.String()
}

// summaryExport reads a --summary-export file.
type summaryExport struct {
	Thresholds []struct {
		Metric, Stat string
		Observed     *float64
	} `json:"thresholds"`
	Metrics  map[string]struct{ Values map[string]float64 } `json:"metrics"`
	Sections struct {
		Omni map[string]map[string]any `json:"omni"`
	} `json:"sections"`
}

func readExport(t *testing.T, path string) summaryExport {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s summaryExport
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// printed is a row's value in the printed blocks (the first block: the whole run's).
func printed(t *testing.T, stdout, label string) float64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(label) + ` +(\S+)`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no %q row in:\n%s", label, stdout)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// ttft.p99 as the threshold saw it is "P99 TTFT (ms)" as printed and saved, the same
// number, on a run that fits the exact budget and on one past it.
func TestThresholdAndPrintedRowAreOneNumber(t *testing.T) {
	t.Parallel()
	for _, budget := range []int{0, 40} {
		r := runScript(t, mixedScript, Options{SummaryExport: "s.json", TrendBudget: budget}, nil)
		s := readExport(t, filepath.Join(r.dir, "s.json"))
		var observed float64
		for _, th := range s.Thresholds {
			if th.Metric == "ttft" && th.Observed != nil {
				observed = *th.Observed
			}
		}
		if observed == 0 {
			t.Fatalf("no ttft threshold observed: %+v", s.Thresholds)
		}
		saved := s.Sections.Omni["all"]["p99_ttft_ms"].(float64)
		if observed != saved || observed != s.Metrics["ttft"].Values["p(99)"] {
			t.Errorf("budget %d: threshold ttft p(99) %v, saved P99 TTFT %v, METRICS p(99) %v: want one number",
				budget, observed, saved, s.Metrics["ttft"].Values["p(99)"])
		}
		if got := printed(t, r.stdout, "P99 TTFT (ms):"); strconv.FormatFloat(observed, 'f', 2, 64) != strconv.FormatFloat(got, 'f', 2, 64) {
			t.Errorf("budget %d: printed P99 TTFT %v, threshold %v", budget, got, observed)
		}
		omnik := s.Sections.Omni["all"]["omnik"].(map[string]any)
		if bound, _ := omnik["percentile_error_bound"].(float64); (bound > 0) != (budget > 0) {
			t.Errorf("budget %d: error bound %v", budget, bound)
		}
		// The stage rows are the stage metrics: Stage 0 (thinker) TTFT, Stage 1 (talker) TTFC.
		stages := omnik["stages"].([]any)
		for _, c := range []struct {
			threshold string
			stage     int
			key       string
		}{{"stage_ttft{stage:thinker}", 0, "p99_ttft_ms"}, {"stage_serving_ttfo{stage:talker}", 1, "p99_ttfc_ms"}} {
			saved, found := stages[c.stage].(map[string]any)[c.key], false
			for _, th := range s.Thresholds {
				if th.Metric == c.threshold {
					found = true
					if th.Observed == nil || *th.Observed != saved {
						t.Errorf("budget %d: %s p(99) %v, saved stage row %s %v", budget, c.threshold, th.Observed, c.key, saved)
					}
				}
			}
			if !found || saved == nil {
				t.Errorf("budget %d: no threshold %s or no stage row %s", budget, c.threshold, c.key)
			}
		}
	}
}

// In a mixed run the whole run's TTFT is the chat scenario's: the speech and image
// requests add no zeros, so the mean lies between the ttft metric's min and max.
func TestMixedRunTTFTHoldsTextRequestsOnly(t *testing.T) {
	t.Parallel()
	r := runScript(t, mixedScript, Options{SummaryExport: "s.json"}, nil)
	s := readExport(t, filepath.Join(r.dir, "s.json"))
	all, chat := s.Sections.Omni["all"], s.Sections.Omni["chat"]
	if all["completed"].(float64) != 20 || chat["completed"].(float64) != 12 {
		t.Fatalf("completed %v (chat %v), want 20 (12)", all["completed"], chat["completed"])
	}
	ttft := s.Metrics["ttft"].Values
	if all["mean_ttft_ms"] != chat["mean_ttft_ms"] || all["p99_ttft_ms"] != chat["p99_ttft_ms"] {
		t.Errorf("whole run TTFT mean %v p99 %v, chat scenario %v %v: want the same", all["mean_ttft_ms"], all["p99_ttft_ms"], chat["mean_ttft_ms"], chat["p99_ttft_ms"])
	}
	if mean := all["mean_ttft_ms"].(float64); mean < ttft["min"] || mean > ttft["max"] {
		t.Errorf("mean TTFT %v outside the ttft metric's [%v, %v]", mean, ttft["min"], ttft["max"])
	}
	if mean := printed(t, r.stdout, "Mean TTFT (ms):"); mean < ttft["min"] {
		t.Errorf("printed Mean TTFT %v below the fastest request's %v", mean, ttft["min"])
	}
	audio := s.Metrics["audio_ttfp"].Values
	if mean := all["mean_audio_ttfp_ms"].(float64); mean != audio["avg"] {
		t.Errorf("mean AUDIO_TTFP %v, audio_ttfp avg %v: want the same requests", mean, audio["avg"])
	}
}

// A run is a library value: two runs at once in one process keep to themselves.
func TestTwoRunsInOneProcess(t *testing.T) {
	t.Parallel()
	var wg sync.WaitGroup
	results := make([]run, 2)
	for i := range results {
		wg.Go(func() { results[i] = runScript(t, mixedScript, Options{SummaryExport: "s.json"}, nil) })
	}
	wg.Wait()
	for i, r := range results {
		s := readExport(t, filepath.Join(r.dir, "s.json"))
		if r.code != 0 || s.Sections.Omni["all"]["completed"].(float64) != 20 {
			t.Errorf("run %d: exit %d, completed %v; want 0 and 20 each", i, r.code, s.Sections.Omni["all"]["completed"])
		}
	}
}

// A run stopped midway (the first Ctrl-C) re-reports as its live summary did.
func TestStoppedRunReportsTheSame(t *testing.T) {
	t.Parallel()
	long := strings.Replace(mixedScript, "iterations: 6", "iterations: 100000", 1)
	stop := func(test *Test) {
		time.Sleep(time.Second)
		test.Stop()
	}
	live := runScript(t, long, Options{Outs: []string{"json=out.ndjson"}}, stop)
	if live.code != engine.ExitInterrupted {
		t.Fatalf("exit %d, want %d", live.code, engine.ExitInterrupted)
	}
	offline := reportFile(t, filepath.Join(live.dir, "out.ndjson"), ReportOptions{})
	if offline.stdout != live.stdout {
		t.Errorf("re-report of a stopped run differs:\n%s", lineDiff(live.stdout, offline.stdout))
	}
}

// An arrival-rate run's rates are over its whole duration, live and re-reported: 3
// requests at 2/s over 1.5 s are 2 req/s and 2 iterations/s, not 3 over the 1 s from
// the first to the last (with a fast simulator, the last request ends well before 1.5 s).
// A VU per arrival: none is dropped, however slow the machine.
func TestArrivalRateThroughputIsOverTheDuration(t *testing.T) {
	t.Parallel()
	src := `import omni from 'omni';
export const options = { scenarios: { gate: { executor: 'constant-arrival-rate', rate: 2, duration: '1500ms', preAllocatedVUs: 3 } } };
export default async function () { await omni.chat({ messages: [{ role: 'user', content: 'ping' }], modalities: ['text'], max_tokens: 4 }); }
`
	live := runScript(t, src, Options{Outs: []string{"json=out.ndjson"}, SummaryExport: "s.json"}, nil)
	s := readExport(t, filepath.Join(live.dir, "s.json"))
	if d := printed(t, live.stdout, "Benchmark duration (s):"); live.code != 0 || d < 1.5 {
		t.Errorf("exit %d, benchmark duration %v s, want at least the 1.5 s scenario:\n%s", live.code, d, live.stdout)
	}
	if rps, its := printed(t, live.stdout, "Request throughput (req/s):"), s.Metrics["iterations"].Values; rps > 2 || its["count"] != 3 || its["rate"] > 2 {
		t.Errorf("request throughput %v req/s, iterations %v: want 3 at no more than 2/s", rps, its)
	}
	offline := reportFile(t, filepath.Join(live.dir, "out.ndjson"), ReportOptions{})
	if offline.stdout != live.stdout {
		t.Errorf("re-report differs:\n%s", lineDiff(live.stdout, offline.stdout))
	}
}

// report files made from one live run's result file.
type resultFile struct {
	t     *testing.T
	dir   string
	lines []string
	live  run
}

func liveFile(t *testing.T) resultFile {
	t.Helper()
	live := runScript(t, mixedScript, Options{Outs: []string{"json=out.ndjson"}}, nil)
	b, err := os.ReadFile(filepath.Join(live.dir, "out.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	return resultFile{t: t, dir: live.dir, lines: strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"), live: live}
}

// write writes the lines (changed by edit) to a new file and returns its path.
func (f resultFile) write(name string, edit func([]string) []string) string {
	f.t.Helper()
	path := filepath.Join(f.dir, name)
	if err := os.WriteFile(path, []byte(strings.Join(edit(append([]string(nil), f.lines...)), "\n")), 0o644); err != nil {
		f.t.Fatal(err)
	}
	return path
}

// index is the position of the n-th line containing s.
func index(lines []string, s string, n int) int {
	for i, l := range lines {
		if strings.Contains(l, s) {
			if n == 0 {
				return i
			}
			n--
		}
	}
	return -1
}

// Damaged files still report everything else, and say in one line what they skipped.
func TestReportOfDamagedFiles(t *testing.T) {
	t.Parallel()
	f := liveFile(t)
	records := strings.Count(strings.Join(f.lines, "\n"), `"type":"Record"`)
	tests := []struct {
		name     string
		edit     func([]string) []string
		warns    []string
		requests string // the "Successful requests:" row
	}{
		{"a record with a malformed and one without a field", func(ls []string) []string {
			i := index(ls, `"type":"Record"`, 0)
			ls[i] = strings.Replace(ls[i], `"e2el_ms":`, `"e2el_ms":"slow","x":`, 1)
			j := index(ls, `"type":"Record"`, 1)
			ls[j] = regexp.MustCompile(`"start":"[^"]*",`).ReplaceAllString(ls[j], "")
			return ls
		}, []string{"skipped 2 records with a missing or malformed field: e2el_ms (1), start (1)"}, strconv.Itoa(records - 2)},
		{"a cut-off last line", func(ls []string) []string {
			last := ls[len(ls)-1]
			return append(ls[:len(ls)-1], last[:len(last)/2])
		}, []string{"ends in the middle of a line"}, strconv.Itoa(records)},
		{"no End line", func(ls []string) []string { return ls[:len(ls)-1] }, []string{"no End line"}, strconv.Itoa(records)},
		{"lines that are not results", func(ls []string) []string {
			return append(ls[:2:2], append([]string{"not json", `{"type":"FromTheFuture","data":{}}`}, ls[2:]...)...)
		}, []string{"skipped 1 lines that are not result lines (first: line 3: not JSON)", "does not read: FromTheFuture (1)"}, strconv.Itoa(records)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := reportFile(t, f.write(strings.ReplaceAll(tc.name, " ", "_"), tc.edit), ReportOptions{})
			for _, w := range tc.warns {
				if !strings.Contains(r.log, w) {
					t.Errorf("no warning %q in:\n%s", w, r.log)
				}
			}
			if strings.Count(r.log, "\n") != len(tc.warns) {
				t.Errorf("want %d warning lines, got:\n%s", len(tc.warns), r.log)
			}
			if got := printed(t, r.stdout, "Successful requests:"); strconv.Itoa(int(got)) != tc.requests {
				t.Errorf("Successful requests %v, want %s", got, tc.requests)
			}
		})
	}
}

// What cannot be read as omnik results is one clear error, exit 104.
func TestReportRefusesWhatIsNotResults(t *testing.T) {
	t.Parallel()
	f := liveFile(t)
	newer := f.write("newer", func(ls []string) []string {
		i := index(ls, `"type":"Record"`, 0)
		ls[i] = strings.Replace(ls[i], `"`+record.Schema+`"`, `"omnik.record/v3"`, 1)
		return ls
	})
	older := f.write("older", func(ls []string) []string {
		for i := range ls {
			ls[i] = strings.Replace(ls[i], `"`+record.Schema+`"`, `"omnik.record/v1"`, 1)
		}
		return ls
	})
	csv := filepath.Join(f.dir, "points.csv")
	_ = os.WriteFile(csv, []byte("metric_name,timestamp,metric_value\nttft,x,1\n"), 0o644)
	for path, want := range map[string]string{newer: "written by a newer omnik", older: "written by an older omnik",
		csv: "not an omnik result file", filepath.Join(f.dir, "missing"): "no such file"} {
		_, err := Report(ReportOptions{Path: path})
		if err == nil || !strings.Contains(err.Error(), want) || engine.ExitCodeOf(err) != engine.ExitInvalidConfig {
			t.Errorf("%s: %v (exit %d), want %q and exit 104", filepath.Base(path), err, engine.ExitCodeOf(err), want)
		}
	}
	// A --script that does not load is exit 104 too, before anything prints.
	var stdout bytes.Buffer
	_, err := Report(ReportOptions{Path: filepath.Join(f.dir, "out.ndjson"), Script: filepath.Join(f.dir, "missing.js"), Stdout: &stdout})
	if err == nil || !strings.Contains(err.Error(), "--script") || engine.ExitCodeOf(err) != engine.ExitInvalidConfig || stdout.Len() > 0 {
		t.Errorf("--script missing.js: %v (exit %d), printed %q", err, engine.ExitCodeOf(err), stdout.String())
	}
}

// Minor versions only add keys: a reader takes them.
func TestReportReadsNewerMinorVersions(t *testing.T) {
	t.Parallel()
	f := liveFile(t)
	path := f.write("minor", func(ls []string) []string {
		for i := range ls {
			ls[i] = strings.Replace(ls[i], `"`+record.Schema+`"`, `"omnik.record/v2.4","new_key":[1]`, 1)
			ls[i] = strings.Replace(ls[i], `"omnik.run/v1"`, `"omnik.run/v1.2"`, 1)
		}
		return ls
	})
	if r := reportFile(t, path, ReportOptions{}); r.stdout != f.live.stdout || r.log != "" {
		t.Errorf("minor versions: log %q, summary differs:\n%s", r.log, lineDiff(f.live.stdout, r.stdout))
	}
}

// Thresholds are the run's, or the script's with --script, plus --threshold; the
// blocks' shape can be changed.
func TestReportThresholdsAndShape(t *testing.T) {
	t.Parallel()
	f := liveFile(t)
	path := filepath.Join(f.dir, "out.ndjson")
	r := reportFile(t, path, ReportOptions{Thresholds: []string{"e2el.max < 1"}})
	if r.code != engine.ExitThresholdsFailed || !strings.Contains(r.stdout, "✗ e2el.max < 1") || !strings.Contains(r.stdout, "✓ p(99) < 60000") {
		t.Errorf("--threshold: exit %d\n%s", r.code, r.stdout)
	}
	script := filepath.Join(f.dir, "strict.js")
	_ = os.WriteFile(script, []byte(`export const options = { thresholds: { audio_ttfp: ['p(50) < 0.001'] }, summaryTrendStats: ['avg', 'p(99.9)'] };
export default function () {}`), 0o644)
	r = reportFile(t, path, ReportOptions{Script: script})
	if r.code != engine.ExitThresholdsFailed || strings.Contains(r.stdout, "p(99) < 60000") || !strings.Contains(r.stdout, "p(99.9)=") {
		t.Errorf("--script: exit %d\n%s", r.code, r.stdout)
	}
	noStages := true
	r = reportFile(t, path, ReportOptions{Metrics: []string{"e2el"}, Percentiles: []float64{50}, NoStages: &noStages})
	// The server's block after them has a reconciliation row of its own for TTFT.
	blocks, _, _ := strings.Cut(r.stdout, "Server Metrics")
	if r.code != 0 || strings.Contains(blocks, "TTFT (ms)") || !strings.Contains(blocks, "P50 E2EL (ms):") || strings.Contains(blocks, "Stage Benchmark") {
		t.Errorf("shape flags: exit %d\n%s", r.code, r.stdout)
	}
}

// What reaches a run after it stopped is said, not dropped silently.
func TestLateArrivalsAreReported(t *testing.T) {
	t.Parallel()
	log, logs := testLog()
	warnLate(log, runEnd{})
	warnLate(log, runEnd{LateSamples: 3, LateRecords: 1})
	if want := "3 samples and 1 request records arrived after the run had stopped"; strings.Count(logs.String(), "\n") != 1 || !strings.Contains(logs.String(), want) {
		t.Errorf("log:\n%s\nwant one line with %q", logs, want)
	}
}
