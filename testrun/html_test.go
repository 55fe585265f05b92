package testrun

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/omnik-dev/omnik/htmlreport"

	"github.com/omnik-dev/omnik/modules/httpdebug"
)

func htmlData(t *testing.T, path string) string {
	t.Helper()
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d, ok := htmlreport.DataSection(page)
	if !ok {
		t.Fatalf("%s has no data section", path)
	}
	return string(d)
}

// --out html=FILE at the end of a live run writes the report omnik report --html writes
// from the run's result file: one stream, one report.
func TestLiveHTMLReportIsTheReportOfItsResultFile(t *testing.T) {
	t.Parallel()
	live := runScript(t, mixedScript, Options{Outs: []string{"json=out.ndjson", "html=reports/live.html"}}, nil)
	if live.code != 0 {
		t.Fatalf("exit %d:\n%s", live.code, live.log)
	}
	if !regexp.MustCompile(`HTML report: \S+live\.html \(\d+\.\d MB\)`).MatchString(live.log) {
		t.Errorf("the run did not say where the report is and its size:\n%s", live.log)
	}
	offline := filepath.Join(live.dir, "offline.html")
	reportFile(t, filepath.Join(live.dir, "out.ndjson"), ReportOptions{HTML: offline})
	a, b := htmlData(t, filepath.Join(live.dir, "reports", "live.html")), htmlData(t, offline)
	if a != b {
		t.Errorf("the live report's data differs from the re-report's:\n%s", lineDiff(strings.ReplaceAll(a, ",", ",\n"), strings.ReplaceAll(b, ",", ",\n")))
	}
	for _, want := range []string{`"Serving Benchmark Result (chat)"`, `"measure":"ttft"`, `"name":"talker"`, `"why":"slowest"`} {
		if !strings.Contains(a, want) {
			t.Errorf("the report's data lacks %s", want)
		}
	}
}

func TestOutHTMLNeedsAFile(t *testing.T) {
	t.Parallel()
	// A report that cannot be written is refused before anything runs or is read.
	bad := "html=/proc/omnik-no-such-dir/r.html"
	_, h, _ := splitHTMLOuts([]string{bad})
	if err := h.check(); err == nil {
		t.Errorf("%s was accepted", bad)
	}
	if _, err := Report(ReportOptions{Path: "testdata/none.ndjson", HTML: "/proc/omnik-no-such-dir/r.html"}); err == nil || !strings.Contains(err.Error(), "HTML report") {
		t.Errorf("omnik report --html to an unwritable path: %v", err)
	}
	if _, _, err := splitHTMLOuts([]string{"json=a", "html="}); err == nil {
		t.Error("html= without a file was accepted")
	}
	rest, h, err := splitHTMLOuts([]string{"json=a", "html=b", "csv=c", "html=d"})
	if err != nil || strings.Join(rest, " ") != "json=a csv=c" || strings.Join(h.paths, " ") != "b d" {
		t.Errorf("split %v %v %v", rest, h, err)
	}
}

// Neither the report nor the result file holds a credential: the target's user info
// and secret query parameters are redacted, the API key is never written.
func TestReportHoldsNoCredential(t *testing.T) {
	t.Parallel()
	script := strings.Replace(mixedScript, "export const options = {", "export const options = {\n  omni: { apiKey: 'sk-omni-secret-1' },", 1)
	live := runScript(t, script, Options{Outs: []string{"json=out.ndjson", "html=r.html"}}, nil)
	for _, f := range []string{"out.ndjson", "r.html"} {
		b, err := os.ReadFile(filepath.Join(live.dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "sk-omni-secret-1") {
			t.Errorf("%s holds the API key", f)
		}
	}
	for raw, want := range map[string]string{
		"http://user:pw@gpu-host:8000":             "http://REDACTED@gpu-host:8000",
		"https://gpu-host/v1?api_key=k1&region=eu": "https://gpu-host/v1?api_key=REDACTED&region=eu",
		"http://gpu-host:8000":                     "http://gpu-host:8000",
		"http://[::1]:namedport":                   "(unparsable URL)",
	} {
		if got := httpdebug.RedactRawURL(raw); got != want {
			t.Errorf("RedactRawURL(%q) = %q, want %q", raw, got, want)
		}
	}
}

// The merged run's HTML report draws what the whole run's draws: the same records on the
// same timeline (the pieces started together), so the same series, distributions, stages
// and failures (the waterfall sample depends on the records' order, which a split
// changes).
func TestMergedHTMLReportIsTheWholeRunsReport(t *testing.T) {
	t.Parallel()
	f := liveFile(t)
	whole := filepath.Join(f.dir, "whole.html")
	reportFile(t, filepath.Join(f.dir, "out.ndjson"), ReportOptions{HTML: whole})
	merged := filepath.Join(f.dir, "merged.html")
	if code, _, logs, err := mergeFiles(t, MergeOptions{Paths: splitFile(t, f, 4, 3, 0, nil), HTML: merged}); err != nil || code != 0 {
		t.Fatalf("merge: exit %d, %v\n%s", code, err, logs)
	}
	parts := func(path string) map[string]string {
		var d map[string]json.RawMessage
		if err := json.Unmarshal([]byte(htmlData(t, path)), &d); err != nil {
			t.Fatal(err)
		}
		// A bucket's ITL band past 256 values is a sample, which the records' order picks.
		var tl map[string]json.RawMessage
		_ = json.Unmarshal(d["timeline"], &tl)
		var bands map[string]json.RawMessage
		_ = json.Unmarshal(tl["latency"], &bands)
		delete(bands, "itl")
		tl["latency"], _ = json.Marshal(bands)
		d["timeline"], _ = json.Marshal(tl)
		out := map[string]string{}
		for _, k := range []string{"records", "duration_s", "timeline", "distributions", "stages", "failures", "metrics", "thresholds", "checks"} {
			out[k] = string(d[k])
		}
		return out
	}
	a, b := parts(whole), parts(merged)
	for k := range a {
		if a[k] != b[k] {
			t.Errorf("merged report's %s differs from the whole run's:\n%s", k, lineDiff(strings.ReplaceAll(a[k], ",", ",\n"), strings.ReplaceAll(b[k], ",", ",\n")))
		}
	}
}

// A target whose URL holds credentials, unreachable: every request fails with Go's error,
// which names the URL. The records, the report and the summary export hold it redacted.
func TestFailuresHoldNoCredentialOfTheTarget(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := `import omni from 'omni';
export const options = { iterations: 2 };
export default async function () {
  await omni.chat({ model: 'm', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 });
}`
	log, _ := testLog()
	test, err := Load(Options{Script: Script{Name: "t.js", Source: []byte(script)}, Quiet: true, Log: log,
		Omni:          OmniOptions{BaseURL: "http://alice:pw-SECRET1@127.0.0.1:9/v1x?api_key=SECRET2&token=SECRET3"},
		Outs:          []string{"json=" + filepath.Join(dir, "out.ndjson"), "html=" + filepath.Join(dir, "r.html")},
		SummaryExport: filepath.Join(dir, "summary.json")})
	if err != nil {
		t.Fatal(err)
	}
	defer test.Close()
	if _, err := test.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"out.ndjson", "r.html", "summary.json"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{"SECRET1", "SECRET2", "SECRET3"} {
			if strings.Contains(string(b), secret) {
				t.Errorf("%s holds %s", f, secret)
			}
		}
		if f == "out.ndjson" && !strings.Contains(string(b), "api_key=REDACTED") {
			t.Errorf("the records do not name the redacted URL:\n%.2000s", b)
		}
	}
}
