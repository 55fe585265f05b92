package testrun

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/mock"
	"github.com/omnik-dev/omnik/servermetrics"
)

// kneeScript keeps 6 chats in flight against a simulator whose knee is 2: its queue is
// 4 long while the run lasts.
const kneeScript = `import omni from 'omni';
export const options = { scenarios: { chat: { executor: 'constant-vus', vus: 6, duration: '1500ms' } } };
export default async function () {
  await omni.chat({ model: 'Qwen/Qwen3-Omni-30B-A3B-Instruct', messages: [{ role: 'user', content: 'Tell me about the tide.' }], max_tokens: 16 });
}
`

// runAgainst runs src against sim, writing the summary export, and returns it.
func runAgainst(t *testing.T, src string, sim *mock.Server, o Options) (exported map[string]json.RawMessage, stdout, log string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "script.js")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	lg, logs := testLog()
	o.Script, o.Quiet, o.Stdout, o.Log, o.Omni.Mock = Script{Path: path}, true, &out, lg, sim
	o.SummaryExport = filepath.Join(dir, "summary.json")
	test, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	defer test.Close()
	if _, err := test.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(o.SummaryExport)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Sections map[string]json.RawMessage `json:"sections"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	return s.Sections, out.String(), logs.String()
}

// The block is what the simulator knows it did: every histogram's count and sum, every
// counter's total, and a queue that rose past the knee but never above its peak. The
// reconciliation pairs the same requests, and the client, which sends first and reads
// last, always measured more than the server.
func TestTheServerBlockAgreesWithWhatTheSimulatorDid(t *testing.T) {
	t.Parallel()
	// At real speed a request spends about 160 ms in the server, far longer than a busy
	// machine keeps a VU between two: the queue lasts, and pages 100 ms apart see it.
	sim, err := mock.New(mock.WithSpeed(1), mock.WithLoadCurve(2, 0.05))
	if err != nil {
		t.Fatal(err)
	}
	o := Options{}
	o.Omni.ServerMetrics.Interval = 100 * time.Millisecond
	sections, stdout, log := runAgainst(t, kneeScript, sim, o)
	var r servermetrics.Report
	if err := json.Unmarshal(sections["server"], &r); err != nil {
		t.Fatalf("no server section: %v\n%s\n%s", err, stdout, log)
	}
	did := sim.Observed()
	hists := 0
	for _, h := range r.Histograms {
		if len(h.Selector) > 0 {
			continue
		}
		want, ok := did.Histograms[h.Family]
		if !ok {
			t.Errorf("%s is in the block but not in what the simulator observed", h.Family)
			continue
		}
		if h.Count != float64(want.Count) {
			t.Errorf("%s: count %g, the simulator observed %d", h.Family, h.Count, want.Count)
		}
		if want.Count > 0 {
			hists++
			if h.Mean == nil || math.Abs(*h.Mean*h.Count-want.Sum) > 1e-9*math.Max(1, want.Sum) {
				t.Errorf("%s: mean %v × %g, the simulator's sum %g", h.Family, h.Mean, h.Count, want.Sum)
			}
		}
	}
	if hists < 3 {
		t.Errorf("only %d histograms with data in the block:\n%s", hists, stdout)
	}
	for _, c := range r.Counters {
		if len(c.Selector) == 0 && c.Increase != did.Counters[c.Family] {
			t.Errorf("%s: increase %g, the simulator counted %g", c.Family, c.Increase, did.Counters[c.Family])
		}
	}
	for _, g := range r.Gauges {
		if len(g.Selector) > 0 {
			continue
		}
		switch g.Family {
		case "vllm:num_requests_waiting":
			if g.Max < 1 || g.Max > float64(did.PeakWaiting) {
				t.Errorf("waiting max %g: want past the knee (≥ 1) and at most the simulator's peak %d", g.Max, did.PeakWaiting)
			}
		case "vllm:num_requests_running":
			if g.Max > 2 {
				t.Errorf("running max %g past the knee of 2", g.Max)
			}
		}
	}
	twins := map[string]servermetrics.TwinRow{}
	for _, tw := range r.Twins {
		twins[tw.Metric] = tw
	}
	for _, name := range []string{"TTFT", "E2EL"} {
		tw, ok := twins[name]
		if !ok {
			t.Fatalf("no %s row in the reconciliation: %+v", name, r.Twins)
		}
		if tw.ClientN != tw.ServerN || tw.ClientN == 0 {
			t.Errorf("%s: %g client requests against %g on the server", name, tw.ClientN, tw.ServerN)
		}
		if d := tw.Stats[0].Diff; tw.Stats[0].Stat != "mean" || d == nil || *d <= 0 {
			t.Errorf("%s: mean client − server %v, want > 0: the client sends first and reads last", name, d)
		}
	}
	if !strings.Contains(stdout, "Client vs Server") {
		t.Errorf("no reconciliation printed:\n%s", stdout)
	}
}

// A server without /metrics gets one line and no block.
func TestAServerWithoutMetricsGetsOneLineAndNoBlock(t *testing.T) {
	t.Parallel()
	sim, err := mock.New(mock.WithSpeed(20), mock.WithoutMetrics())
	if err != nil {
		t.Fatal(err)
	}
	sections, stdout, log := runAgainst(t, plainScript, sim, Options{})
	if _, ok := sections["server"]; ok || strings.Contains(stdout, "Server Metrics") {
		t.Errorf("a server block for a server without /metrics:\n%s", stdout)
	}
	if n := strings.Count(log, "\n"); n != 1 || !strings.Contains(log, "server metrics:") || !strings.Contains(log, "404") {
		t.Errorf("want exactly one line on the missing page, got:\n%s", log)
	}
}

// VU init and setup() are not the run: the pages read while setup sleeps are before it,
// so the counters' window starts at the last of them and gauges leave them out. A
// threshold with a selection on a server family is judged live and re-reported alike.
func TestTheServerWindowLeavesSetupOut(t *testing.T) {
	t.Parallel()
	sim, err := mock.New(mock.WithSpeed(20))
	if err != nil {
		t.Fatal(err)
	}
	src := `import omni from 'omni';
import { sleep } from 'omnik';
export const options = {
  scenarios: { chat: { executor: 'constant-vus', vus: 2, duration: '500ms' } },
  thresholds: { 'server:vllm:num_requests_running{stage:thinker}': ['max <= 2'], 'server:vllm:request_success_total{stage:thinker}': ['count > 0'] },
};
export function setup() { sleep(3); }
export default async function () {
  await omni.chat({ model: 'Qwen/Qwen3-Omni-30B-A3B-Instruct', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 });
}
`
	o := Options{Outs: []string{"json=" + filepath.Join(t.TempDir(), "out.ndjson")}}
	o.Omni.ServerMetrics.Interval = 100 * time.Millisecond
	sections, stdout, log := runAgainst(t, src, sim, o)
	var r servermetrics.Report
	if err := json.Unmarshal(sections["server"], &r); err != nil {
		t.Fatalf("no server section: %v\n%s\n%s", err, stdout, log)
	}
	if r.WindowSeconds >= 3 {
		t.Errorf("window %.2f s: it holds the 3 s setup() slept", r.WindowSeconds)
	}
	// setup() sleeps through about 30 pages; the scenario lasts 500 ms, 5 of them.
	for _, g := range r.Gauges {
		if g.Family == "vllm:num_requests_running" && len(g.Selector) == 0 && g.Pages >= 25 {
			t.Errorf("running judged on %d pages: the pages setup() slept through are in it", g.Pages)
		}
	}
	if !strings.Contains(stdout, "✓ max <= 2") || !strings.Contains(stdout, "✓ count > 0") {
		t.Errorf("the selection thresholds:\n%s\n%s", stdout, log)
	}
	again := reportFile(t, o.Outs[0][len("json="):], ReportOptions{})
	if again.code != 0 || block(t, again.stdout) != block(t, stdout) {
		t.Errorf("re-report exit %d, block:\n%s\nlive:\n%s", again.code, block(t, again.stdout), block(t, stdout))
	}
}

func TestServerThresholdsWithServerMetricsOffAreRefused(t *testing.T) {
	t.Parallel()
	o := Options{Script: Script{Name: "s.js", Source: []byte(serverScript)}}
	o.Omni.ServerMetrics.Off = true
	if _, err := Load(o); err == nil || !strings.Contains(err.Error(), "--server-metrics=off") {
		t.Fatalf("Load: %v", err)
	}
}
