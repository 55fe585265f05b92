package htmlreport_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/htmlreport"
	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/servermetrics"
)

// vllmPage is a /metrics page of a vLLM-Omni server: its queues, each stage's requests
// in flight, a success counter, the TTFT histogram (s) over the buckets 0.05, 0.1, 0.5,
// +Inf and the audio RTF histogram (a ratio) over 0.5, 1, +Inf, with the given
// cumulative counts.
type vllmPage struct {
	running, waiting float64
	stages           map[string]float64
	success          float64
	ttft             [4]float64
	ttftSum          float64
	rtf              [3]float64
	rtfSum           float64
}

func (p vllmPage) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name=\"m\"} %g\n", p.running)
	fmt.Fprintf(&b, "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{model_name=\"m\"} %g\n", p.waiting)
	fmt.Fprintf(&b, "# TYPE vllm:request_success_total counter\nvllm:request_success_total{finished_reason=\"stop\"} %g\n", p.success)
	b.WriteString("# TYPE vllm:time_to_first_token_seconds histogram\n")
	for i, le := range []string{"0.05", "0.1", "0.5", "+Inf"} {
		fmt.Fprintf(&b, "vllm:time_to_first_token_seconds_bucket{le=%q} %g\n", le, p.ttft[i])
	}
	fmt.Fprintf(&b, "vllm:time_to_first_token_seconds_sum %g\nvllm:time_to_first_token_seconds_count %g\n", p.ttftSum, p.ttft[3])
	b.WriteString("# TYPE vllm_omni:audio_rtf histogram\n")
	for i, le := range []string{"0.5", "1", "+Inf"} {
		fmt.Fprintf(&b, "vllm_omni:audio_rtf_bucket{le=%q} %g\n", le, p.rtf[i])
	}
	fmt.Fprintf(&b, "vllm_omni:audio_rtf_sum %g\nvllm_omni:audio_rtf_count %g\n", p.rtfSum, p.rtf[2])
	if len(p.stages) > 0 {
		b.WriteString("# TYPE vllm_omni:stage_inflight_requests gauge\n")
		for st, v := range p.stages {
			fmt.Fprintf(&b, "vllm_omni:stage_inflight_requests{stage=%q} %g\n", st, v)
		}
	}
	return b.String()
}

func scrape(t *testing.T, at time.Duration, ph servermetrics.Phase, page string) servermetrics.Scrape {
	t.Helper()
	pts, _, err := servermetrics.Parse([]byte(page), func(string) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	return servermetrics.Scrape{At: at, Phase: ph, Points: pts}
}

// runPages are the pages of a run of 3.3 s (the fixture's): one before, one every half
// second, one failed read, one after; 27 requests' TTFT and RTF observed, queues that
// rise and fall, and the stages named in flight.
func runPages(t *testing.T, stages ...string) []servermetrics.Scrape {
	t.Helper()
	page := func(i int, queued bool) string {
		f := float64(i) / 7
		n := math.Round(27 * f)
		p := vllmPage{success: math.Round(44 * f), ttft: [4]float64{0, n, n, n}, ttftSum: 0.079 * n,
			rtf: [3]float64{math.Round(20 * f), n, n}, rtfSum: 0.4 * n, stages: map[string]float64{}}
		if queued {
			p.running, p.waiting = float64(min(i, 7-i)), float64(i%3)
			for k, st := range stages {
				p.stages[st] = float64(min(i, 7-i) + k)
			}
		}
		return p.String()
	}
	out := []servermetrics.Scrape{scrape(t, 0, servermetrics.Before, page(0, false))}
	for i := 1; i <= 6; i++ {
		out = append(out, scrape(t, time.Duration(i)*500*time.Millisecond, servermetrics.During, page(i, true)))
	}
	out = append(out, servermetrics.Scrape{At: 3200 * time.Millisecond, Phase: servermetrics.During, Err: "timeout",
		Detail: "context deadline exceeded <b>after 1s</b>"})
	return append(out, scrape(t, 3400*time.Millisecond, servermetrics.After, page(7, false)))
}

// Server text that would run if it were markup: each sets data-pwned on the body.
const (
	hostileStage  = `<img src=x onerror="document.body.setAttribute('data-pwned','stage')">`
	hostileURL    = `http://127.0.0.1:9/metrics?q=<script>document.body.setAttribute('data-pwned','url')</script>`
	hostileDetail = `HTTP 500: <svg onload="document.body.setAttribute('data-pwned','detail')">`
)

// hostilePages are runPages with a stage named with markup, a failed read whose detail
// is markup, and a gauge family a JavaScript object would not hold as a key (kept, as
// --server-metrics-all keeps every family).
func hostilePages(t *testing.T) []servermetrics.Scrape {
	pages := runPages(t, "thinker", hostileStage)
	for i := range pages {
		if pages[i].Err != "" {
			pages[i].Detail = hostileDetail
			continue
		}
		extra := scrape(t, pages[i].At, pages[i].Phase, "# TYPE __proto__ gauge\n__proto__ 1\n")
		pages[i].Points = append(pages[i].Points, extra.Points...)
	}
	return pages
}

// Server text in the page is data, never markup: the page with it loads nothing.
func TestHostileServerTextLoadsNothing(t *testing.T) {
	t.Parallel()
	page, _ := reportOf(t, withServerPages(t, hostileURL, hostilePages(t)))
	checkSelfContained(t, page)
	for _, s := range []string{"<img src=x", "<script>document", "<svg"} {
		if bytes.Contains(page, []byte(s)) {
			t.Errorf("the page holds %q as it came", s)
		}
	}
}

// withServerPages writes the fixture's result file with the server's pages among its
// lines and its header naming the page, as a run that read them writes it.
func withServerPages(t *testing.T, url string, pages []servermetrics.Scrape) string {
	t.Helper()
	f, err := os.Open(fixture)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	enc := servermetrics.NewEncoder()
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e struct {
			Type string                     `json:"type"`
			Data map[string]json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatal(err)
		}
		switch e.Type {
		case "Run":
			e.Data["schema"], _ = json.Marshal("omnik.run/v1.3")
			e.Data["server_metrics"], _ = json.Marshal(url)
			line, _ = json.Marshal(e)
		case "End":
			for _, p := range pages {
				b, err := json.Marshal(map[string]any{"type": servermetrics.EntryType, "data": enc.Entry(p)})
				if err != nil {
					t.Fatal(err)
				}
				out.Write(append(b, '\n'))
			}
		}
		out.Write(append(line, '\n'))
	}
	path := filepath.Join(t.TempDir(), "with-server.ndjson")
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The report of a result file with server pages has the server part, and the rest of
// its data is the report of the same file without them.
func TestServerPartOfAReportMatchesGolden(t *testing.T) {
	t.Parallel()
	page, _ := reportOf(t, withServerPages(t, "http://127.0.0.1:8000/metrics", runPages(t, "thinker", "talker")))
	var d map[string]json.RawMessage
	if err := json.Unmarshal(dataOf(t, page), &d); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := json.Indent(&got, d["server"], "", " "); err != nil {
		t.Fatalf("no server part: %v", err)
	}
	got.WriteByte('\n')
	checkGolden(t, "testdata/server.data.golden.json", got.Bytes())
	// The rest is the fixture's report: the Serving/Stage blocks are untouched, the
	// server's text block is not among them.
	plain, _ := reportOf(t, fixture)
	var p map[string]json.RawMessage
	if err := json.Unmarshal(dataOf(t, plain), &p); err != nil {
		t.Fatal(err)
	}
	delete(d, "server")
	a, _ := json.Marshal(d)
	b, _ := json.Marshal(p)
	if !bytes.Equal(a, b) {
		t.Errorf("the server pages changed the rest of the report:\n%.2000s\nwant\n%.2000s", a, b)
	}
	if !bytes.Contains(page, []byte(`href="#server"`)) || bytes.Contains(plain, []byte(`href="#server"`)) {
		t.Error("the Server metrics link is not in the page with server pages only")
	}
}

// stubSection is a summary section with a fixed text block.
type stubSection struct{ name, text string }

func (s stubSection) Name() string           { return s.name }
func (s stubSection) Text(w io.Writer) error { _, err := io.WriteString(w, s.text); return err }
func (s stubSection) JSON() any              { return nil }

// serverData is the report's data of a summary holding the Server metrics section of
// pages and the client's TTFT of 102..111 ms, besides a Serving block.
func serverData(t *testing.T, pages []servermetrics.Scrape) *htmlreport.Data {
	t.Helper()
	w := servermetrics.NewWindow(0)
	for _, p := range pages {
		w.Add(p)
	}
	ttft := metrics.NewTrendSink(100)
	for i := range 10 {
		ttft.Add(metrics.Sample{Value: 102 + float64(i)})
	}
	client := func(name string) metrics.Sink {
		if name == "ttft" {
			return ttft
		}
		return nil
	}
	sec := &servermetrics.Section{Report: w.Summarise("http://127.0.0.1:8000/metrics", client)}
	serving := stubSection{"serving", "============ Serving Benchmark Result ============\nSuccessful requests:                     10        \n"}
	s := &metrics.Summary{TestRunDurationMs: 4000, Metrics: map[string]*metrics.MetricSummary{}, Sections: []metrics.Section{serving, sec}}
	return htmlreport.NewCollector().Data(s, time.Unix(1_780_000_000, 0))
}

// The servermetrics golden's window: the numbers its text block prints.
func goldenPages(t *testing.T) []servermetrics.Scrape {
	page := func(running, waiting, success float64, ttft [4]float64, sum float64, stages map[string]float64) string {
		return vllmPage{running: running, waiting: waiting, success: success, ttft: ttft, ttftSum: sum, stages: stages}.String()
	}
	return []servermetrics.Scrape{
		scrape(t, 0, servermetrics.Before, page(0, 0, 100, [4]float64{50, 100, 100, 100}, 5, nil)),
		scrape(t, time.Second, servermetrics.During, page(4, 2, 103, [4]float64{51, 102, 103, 103}, 5.2, map[string]float64{"thinker": 3, "talker": 1})),
		scrape(t, 3*time.Second, servermetrics.During, page(8, 6, 108, [4]float64{52, 105, 108, 108}, 5.8, map[string]float64{"thinker": 5, "talker": 3})),
		{At: 3500 * time.Millisecond, Phase: servermetrics.During, Err: "timeout", Detail: "context deadline exceeded"},
		scrape(t, 4*time.Second, servermetrics.After, page(0, 0, 110, [4]float64{52, 106, 110, 110}, 6, nil)),
	}
}

// The server part holds what the Server metrics block prints (servermetrics'
// testdata/section.golden, of the same pages), from its JSON: the text block's
// multi-column reconciliation is not read as label: value rows.
func TestServerPartHoldsTheBlocksNumbers(t *testing.T) {
	t.Parallel()
	d := serverData(t, goldenPages(t))
	s := d.Server
	if s == nil {
		t.Fatal("no server part")
	}
	if s.URL != "http://127.0.0.1:8000/metrics" || s.Pages != 4 || s.WindowS != 4 ||
		fmt.Sprint(s.Failed) != "[{timeout 1 context deadline exceeded}]" {
		t.Errorf("about the page: %q, %d pages, window %v, failed %v", s.URL, s.Pages, s.WindowS, s.Failed)
	}
	var names []string
	for _, g := range s.Gauges {
		names = append(names, fmt.Sprintf("%s:%v/%v", g.Name, g.Mean, g.Max))
	}
	want := "vllm:num_requests_running:6/8 vllm:num_requests_waiting:4/6 vllm_omni:stage_inflight_requests:6/8 " +
		"vllm_omni:stage_inflight_requests{stage=talker}:2/3 vllm_omni:stage_inflight_requests{stage=thinker}:4/5"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("gauges\n got %s\nwant %s", got, want)
	}
	// The timeline has every page the gauge was on, at its time on the run's timeline.
	if tl := s.Gauges[0].Timeline; fmt.Sprint(tl.T, tl.Mean, tl.Max) != "[0 1 3 4] [0 4 8 0] [0 4 8 0]" {
		t.Errorf("running's timeline %v", tl)
	}
	if tl := s.Gauges[3].Timeline; fmt.Sprint(tl.T, tl.Mean) != "[1 3] [1 3]" {
		t.Errorf("talker's timeline %v", tl)
	}
	if c := s.Counters; len(c) != 1 || c[0].Name != "vllm:request_success_total" || c[0].Increase != 10 || c[0].Rate != 2.5 {
		t.Errorf("counters %+v", c)
	}
	var ttft, rtf *htmlreport.ServerHistogram
	for i, h := range s.Histograms {
		switch h.Family {
		case "vllm:time_to_first_token_seconds":
			ttft = &s.Histograms[i]
		case "vllm_omni:audio_rtf":
			rtf = &s.Histograms[i]
		}
	}
	// Seconds shown in ms as the block prints them: Mean 100.00, P50 87.50, P99 490.00.
	if ttft == nil || jsonOf(ttft) != `{"name":"vllm:time_to_first_token_seconds","family":"vllm:time_to_first_token_seconds","unit":"ms","count":10,"mean":100,"p50":87.5,"p99":490}` {
		t.Errorf("TTFT histogram %s", jsonOf(ttft))
	}
	// A ratio keeps its unit; no request observed means no mean (null).
	if rtf == nil || jsonOf(rtf) != `{"name":"vllm_omni:audio_rtf","family":"vllm_omni:audio_rtf","unit":"","count":0,"mean":null,"p50":null,"p99":null}` {
		t.Errorf("RTF histogram %s", jsonOf(rtf))
	}
	if len(s.Twins) != 2 || jsonOf(s.Twins[1]) != `{"metric":"AUDIO_RTF","unit":"","client_metric":"audio_rtf","server_family":"vllm_omni:audio_rtf",`+
		`"client_count":0,"server_count":0,"stats":[{"stat":"mean","client":null,"server":null,"diff":null},`+
		`{"stat":"p50","client":null,"server":null,"diff":null},{"stat":"p99","client":null,"server":null,"diff":null}]}` {
		t.Fatalf("reconciliation %s", jsonOf(s.Twins))
	}
	tw := s.Twins[0]
	var stats []string
	for _, st := range tw.Stats {
		b := ""
		if st.Bucket != nil {
			b = fmt.Sprint(*st.Bucket)
		}
		stats = append(stats, fmt.Sprintf("%s %s %s %s %s", st.Stat, jsonOf(st.Client), jsonOf(st.Server), jsonOf(st.Diff), b))
	}
	if tw.Metric != "TTFT" || tw.Unit != "ms" || tw.ClientN != 10 || tw.ServerN != 10 ||
		strings.Join(stats, "; ") != "mean 106.5 100 6.5 ; p50 106.5 87.5 19 [50 100]; p99 110.91 490 -379.09 [100 500]" {
		t.Errorf("reconciliation %+v: %s", tw, strings.Join(stats, "; "))
	}
	b, _ := json.Marshal(d.Blocks)
	if string(b) != `[{"kind":"title","label":"Serving Benchmark Result"},{"kind":"row","label":"Successful requests","value":"10"}]` {
		t.Errorf("blocks %s: the server's text block is not one of them", b)
	}
}

func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// A run against a server without /metrics has no server section: no server part, no
// link to one.
func TestNoServerSectionNoServerPart(t *testing.T) {
	t.Parallel()
	d := htmlreport.NewCollector().Data(&metrics.Summary{TestRunDurationMs: 1000, Metrics: map[string]*metrics.MetricSummary{}}, time.Unix(1_780_000_000, 0))
	var page bytes.Buffer
	if err := d.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	data, _ := htmlreport.DataSection(page.Bytes())
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m["server"]; ok || d.Server != nil || bytes.Contains(page.Bytes(), []byte(`href="#server"`)) {
		t.Errorf("a run without server pages has a server part: %s", m["server"])
	}
}

// A page of thousands of families is drawn with the first 64 rows of each list, the
// queues and the stages in flight first, and says how many it left out.
func TestServerPartIsBounded(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, "# TYPE aaa_gauge_%03d gauge\naaa_gauge_%03d 1\n# TYPE aaa_total_%03d counter\naaa_total_%03d 1\n", i, i, i, i)
	}
	b.WriteString(vllmPage{running: 1, stages: map[string]float64{"a": 1, "b": 2}}.String())
	d := serverData(t, []servermetrics.Scrape{scrape(t, 0, servermetrics.During, b.String()), scrape(t, time.Second, servermetrics.During, b.String())})
	s := d.Server
	if len(s.Gauges) != 64 || s.LeftOut.Gauges != 205-64 || len(s.Counters) != 64 || s.LeftOut.Counters != 201-64 || s.MaxRows != 64 {
		t.Fatalf("%d gauges (%d left out), %d counters (%d left out)", len(s.Gauges), s.LeftOut.Gauges, len(s.Counters), s.LeftOut.Counters)
	}
	var first []string
	for _, g := range s.Gauges[:5] {
		first = append(first, g.Name)
	}
	if got := strings.Join(first, " "); got != "vllm:num_requests_running vllm:num_requests_waiting vllm_omni:stage_inflight_requests "+
		"vllm_omni:stage_inflight_requests{stage=a} vllm_omni:stage_inflight_requests{stage=b}" {
		t.Errorf("the first gauges are %s", got)
	}
}
