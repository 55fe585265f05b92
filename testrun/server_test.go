package testrun

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeMetrics serves a vLLM page whose counters move by one request per read, with a
// queue of 3 while reads go on.
type fakeMetrics struct {
	mu    sync.Mutex
	reads int
}

func (f *fakeMetrics) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	n := f.reads
	f.reads++
	f.mu.Unlock()
	fmt.Fprintf(w, "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{model_name=\"m\"} 3\n")
	fmt.Fprintf(w, "# TYPE vllm:request_success_total counter\nvllm:request_success_total{model_name=\"m\"} %d\n", 100+n)
	fmt.Fprintf(w, "# TYPE vllm:e2e_request_latency_seconds histogram\n")
	fmt.Fprintf(w, "vllm:e2e_request_latency_seconds_bucket{le=\"0.5\",model_name=\"m\"} %d\n", 100+n)
	fmt.Fprintf(w, "vllm:e2e_request_latency_seconds_bucket{le=\"+Inf\",model_name=\"m\"} %d\n", 100+n)
	fmt.Fprintf(w, "vllm:e2e_request_latency_seconds_sum{model_name=\"m\"} %g\n", 0.25*float64(100+n))
	fmt.Fprintf(w, "vllm:e2e_request_latency_seconds_count{model_name=\"m\"} %d\n", 100+n)
}

const serverScript = `import omni from 'omni';
export const options = {
  scenarios: { chat: { executor: 'per-vu-iterations', vus: 1, iterations: 3 } },
  thresholds: { 'server:vllm:num_requests_waiting': ['max < 8', 'avg == 3'] },
};
export default async function () {
  await omni.chat({ model: 'Qwen/Qwen3-Omni-30B-A3B-Instruct', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 });
}
`

// plainScript is serverScript without its thresholds.
var plainScript = strings.Replace(serverScript, "\n  thresholds: { 'server:vllm:num_requests_waiting': ['max < 8', 'avg == 3'] },", "", 1)

// block is the Server metrics block of a summary.
func block(t *testing.T, summary string) string {
	t.Helper()
	i := strings.Index(summary, "================= Server Metrics")
	if i < 0 {
		t.Fatalf("no Server metrics block in:\n%s", summary)
	}
	rest := summary[i:]
	end := strings.Index(rest, "\n==================================================\n")
	return rest[:end]
}

func TestServerMetricsAreScrapedJudgedAndReReported(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(&fakeMetrics{})
	defer srv.Close()
	o := Options{Outs: []string{"json=out.ndjson"}, Thresholds: []string{"server:vllm:request_success_total.count >= 1"}}
	o.Omni.ServerMetrics = ServerMetricsOptions{URL: srv.URL + "/metrics"}
	live := runScript(t, serverScript, o, nil)
	if live.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", live.code, live.stdout, live.log)
	}
	b := block(t, live.stdout)
	for _, want := range []string{"Endpoint:                                " + srv.URL + "/metrics",
		"vllm:num_requests_waiting                          3.00       3.00", "vllm:e2e_request_latency_seconds (ms)"} {
		if !strings.Contains(b, want) {
			t.Errorf("block lacks %q:\n%s", want, b)
		}
	}
	for _, th := range []string{"server:vllm:num_requests_waiting", "server:vllm:request_success_total"} {
		if !strings.Contains(live.stdout, th) {
			t.Errorf("the thresholds block lacks %s", th)
		}
	}
	raw, err := os.ReadFile(filepath.Join(live.dir, "out.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(raw), `"type":"ServerScrape"`); n < 2 {
		t.Fatalf("%d ServerScrape lines, want the pages before and after at least", n)
	}
	again := reportFile(t, filepath.Join(live.dir, "out.ndjson"), ReportOptions{})
	if got := block(t, again.stdout); got != b {
		t.Errorf("omnik report printed another block:\n%s\nlive:\n%s", got, b)
	}
	if again.code != 0 {
		t.Errorf("re-report exit %d", again.code)
	}
}

func TestAFailingServerThresholdFailsTheRun(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(&fakeMetrics{})
	defer srv.Close()
	o := Options{Thresholds: []string{"server:vllm:num_requests_waiting.max < 2"}}
	o.Omni.ServerMetrics = ServerMetricsOptions{URL: srv.URL}
	r := runScript(t, serverScript, o, nil)
	if r.code != 99 || !strings.Contains(r.log, "server:vllm:num_requests_waiting") {
		t.Fatalf("exit %d, want 99\n%s", r.code, r.log)
	}
}

func TestAnExplicitPageThatFailsIsCountedNotFatal(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	o := Options{}
	o.Omni.ServerMetrics = ServerMetricsOptions{URL: srv.URL + "/metrics", Interval: 100 * time.Millisecond}
	r := runScript(t, plainScript, o, nil)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.log)
	}
	b := block(t, r.stdout)
	if !strings.Contains(b, "status_404 (") || !strings.Contains(b, "Pages read:                              0") {
		t.Errorf("block:\n%s", b)
	}
	if n := strings.Count(r.log, "server metrics:"); n != 1 {
		t.Errorf("%d log lines on the page, want 1:\n%s", n, r.log)
	}
}

func TestABadServerMetricsOptionFailsBeforeTheRun(t *testing.T) {
	t.Parallel()
	for _, o := range []ServerMetricsOptions{{URL: "ftp://x/metrics"}, {Interval: time.Millisecond}, {Interval: -time.Second}} {
		opts := Options{Script: Script{Name: "s.js", Source: []byte(serverScript)}}
		opts.Omni.ServerMetrics = o
		if _, err := Load(opts); err == nil {
			t.Errorf("%+v loaded", o)
		}
	}
}

// Every piece of a distributed run scrapes the same server: the merge reads the first
// piece's pages only, and says it left the others out.
func TestMergeCountsTheServersPagesOnce(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(&fakeMetrics{})
	defer srv.Close()
	o := Options{Outs: []string{"json=out.ndjson"}}
	o.Omni.ServerMetrics = ServerMetricsOptions{URL: srv.URL}
	live := runScript(t, plainScript, o, nil)
	raw, err := os.ReadFile(filepath.Join(live.dir, "out.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	var pages []string
	for _, l := range lines {
		if strings.Contains(l, `"type":"ServerScrape"`) {
			pages = append(pages, l)
		}
	}
	paths := splitFile(t, resultFile{t: t, dir: live.dir, lines: lines, live: live}, 2, 3, 0, nil)
	f, err := os.OpenFile(paths[1], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(strings.Join(pages, "\n") + "\n")
	f.Close()
	_, merged, logs, err := mergeFiles(t, MergeOptions{Paths: paths})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := block(t, merged), block(t, live.stdout); got != want {
		t.Errorf("merged block:\n%s\nthe run's:\n%s", got, want)
	}
	if !strings.Contains(logs, "server pages of a second piece") {
		t.Errorf("the second piece's pages were left out without a word:\n%s", logs)
	}
}

// options.omni.serverMetrics names the page a script gates on; the flags override it.
func TestTheScriptNamesItsServerPage(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(&fakeMetrics{})
	defer srv.Close()
	src := strings.Replace(serverScript, "export const options = {", "export const options = {\n  omni: { serverMetrics: { url: '"+srv.URL+"/metrics', interval: '200ms' } },", 1)
	r := runScript(t, src, Options{}, nil)
	if r.code != 0 || !strings.Contains(block(t, r.stdout), "Endpoint:                                "+srv.URL+"/metrics") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.log)
	}
	off := Options{Script: Script{Name: "s.js", Source: []byte(src)}}
	off.Omni.ServerMetrics.Off = true
	if _, err := Load(off); err == nil || !strings.Contains(err.Error(), "--server-metrics=off") {
		t.Errorf("--server-metrics=off over the script's page, with server thresholds: %v", err)
	}
	for _, bad := range []string{
		strings.Replace(src, "interval: '200ms'", "interval: '1ms'", 1),
		strings.Replace(src, "serverMetrics: {", "serverMetrics: 'x', _: {", 1),
		strings.Replace(src, "url: '"+srv.URL+"/metrics'", "url: 'ftp://h/metrics'", 1),
	} {
		if _, err := Load(Options{Script: Script{Name: "s.js", Source: []byte(bad)}}); err == nil {
			t.Errorf("loaded:\n%s", bad)
		}
	}
}
