package htmlreport_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/htmlreport"
	"github.com/omnik-dev/omnik/internal/chromium"
	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/modules/omni/chunk"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// checkInBrowser opens a report in headless Chromium, offline, and checks what a reader
// would see: no console error, exception or request; every chart drawn; a screenshot
// that is not blank. It returns the page for more checks.
func checkInBrowser(t *testing.T, path string) *chromium.Page {
	t.Helper()
	page := chromium.Open(t, path, chromium.WindowSize(1400, 1000))
	page.WaitFor(`window.omnikReportReady === true`, 0)
	var charts struct{ Drawn, Divs int }
	page.Eval(`({drawn: window.omnikCharts, divs: document.querySelectorAll(".chart").length})`, &charts)
	if charts.Divs == 0 || charts.Drawn != charts.Divs {
		t.Errorf("%d charts drawn of %d chart elements", charts.Drawn, charts.Divs)
	}
	if bad := page.Unrendered(".chart"); len(bad) > 0 {
		t.Errorf("charts with nothing painted: %v", bad)
	}
	colors, painted := chromium.NotBlank(page.Screenshot())
	if colors < 50 || painted < 0.05 {
		t.Errorf("the screenshot looks blank: %d colours, %.1f%% not background", colors, painted*100)
	}
	// Checked last: the browser reports some events after the page is drawn.
	if errs := page.Errors(); len(errs) > 0 {
		t.Errorf("the page reported %d errors:\n%v", len(errs), errs)
	}
	return page
}

func TestReportRendersInABrowser(t *testing.T) {
	t.Parallel()
	_, path := reportOf(t, fixture)
	page := checkInBrowser(t, path)
	var server int
	page.Eval(`document.querySelectorAll("#server, a[href='#server']").length`, &server)
	if server != 0 {
		t.Errorf("a run without server pages shows %d Server metrics elements", server)
	}
}

// The Server metrics part of a run whose server named a stage with markup: its charts
// drawn on the run's axis, its reconciliation rows, and the stage name, the page's URL
// and a failure's detail shown as text wherever they appear, tooltips included.
func TestServerPartRendersInABrowserWithHostileNames(t *testing.T) {
	t.Parallel()
	_, path := reportOf(t, withServerPages(t, hostileURL, hostilePages(t)))
	page := checkInBrowser(t, path)
	var got struct {
		Charts, Twins int
		Families      []string
		URL, Detail   string
		StageCell     bool
		AxisMax       float64
		TimeAxisMax   float64
		Imgs          int
	}
	page.Eval(`(() => {
	  const s = document.getElementById("server");
	  const chart = s.querySelector(".chart");
	  return {charts: s.querySelectorAll(".chart").length, twins: s.querySelectorAll("table.twins tr.twin").length,
	    families: [...s.querySelectorAll(".panel h3")].map(h => h.textContent),
	    url: s.querySelector("table td:last-child").textContent,
	    detail: [...s.querySelectorAll("td")].find(td => td.textContent.startsWith("failed: timeout")).nextSibling.textContent,
	    stageCell: [...s.querySelectorAll("td")].some(td => td.textContent.includes("{stage=<img src=x")),
	    axisMax: echarts.getInstanceByDom(chart).getOption().xAxis[0].max,
	    timeAxisMax: echarts.getInstanceByDom(document.querySelector("#time .chart")).getOption().xAxis[0].max,
	    imgs: document.querySelectorAll("img").length};
	})()`, &got)
	if got.Charts != 4 || strings.Join(got.Families, ",") != "vllm:num_requests_running,vllm:num_requests_waiting,vllm_omni:stage_inflight_requests,__proto__" {
		t.Errorf("%d server charts: %v", got.Charts, got.Families)
	}
	// TTFT and AUDIO_RTF: n, mean, p50, p99 each.
	if got.Twins != 8 {
		t.Errorf("%d reconciliation rows, want 8", got.Twins)
	}
	// One axis with the Over time charts: the run's four 1-second buckets, which the
	// After page (3.4 s) falls within.
	if got.AxisMax != 4 || got.TimeAxisMax != 4 {
		t.Errorf("the server's axis ends at %v s, the run's at %v s; want 4", got.AxisMax, got.TimeAxisMax)
	}
	if got.URL != hostileURL || got.Detail != hostileDetail || !got.StageCell || got.Imgs != 0 {
		t.Errorf("hostile text not shown as text: %+v", got)
	}
	// The stage's line in its tooltip, which is HTML.
	page.Eval(`(() => {
	  const div = [...document.querySelectorAll("#server .panel")].find(p => p.querySelector("h3").textContent.includes("stage_inflight")).querySelector(".chart");
	  const chart = echarts.getInstanceByDom(div);
	  const [px, py] = chart.convertToPixel({xAxisIndex: 0, yAxisIndex: 0}, [1.5, 2]);
	  chart.getZr().handler.dispatch("mousemove", {zrX: px, zrY: py});
	})()`, nil)
	page.WaitFor(`[...document.querySelectorAll("#server .panel div")].some(d => d.textContent.includes("stage=<img src=x onerror="))`, 0)
	var pwned string
	page.Eval(`document.body.getAttribute("data-pwned") || ""`, &pwned)
	if pwned != "" {
		t.Errorf("server text ran as HTML (%s)", pwned)
	}
	if errs := page.Errors(); len(errs) > 0 {
		t.Errorf("the page reported errors: %v", errs)
	}
}

// A run with nothing to draw but failures still makes a page without errors.
func TestReportOfOnlyFailuresRendersInABrowser(t *testing.T) {
	t.Parallel()
	c := htmlreport.NewCollector()
	for i := range 20 {
		c.Add(&record.Record{Endpoint: record.EndpointChat, Status: 503, Offset: time.Duration(i) * 100 * time.Millisecond, End: time.Millisecond,
			Err: &record.Error{Kind: record.KindHTTPStatus, Message: `HTTP 503: <script>alert("x")</script>`}})
	}
	c.Add(&record.Record{Endpoint: record.EndpointChat, Status: 200, End: time.Millisecond,
		Anomalies: []record.Anomaly{{Kind: record.AnomalyModality, Message: `a chunk of modality "<b>video</b>"`, Count: 1}}})
	s := &metrics.Summary{TestRunDurationMs: 2000, Metrics: map[string]*metrics.MetricSummary{},
		Run: []byte(`{"script":"dir/a&b <img src=x onerror=alert(1)>.js"}`)}
	path := filepath.Join(t.TempDir(), "failures.html")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Data(s, time.Unix(1_780_000_000, 0)).WriteHTML(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	page := chromium.Open(t, path)
	page.WaitFor(`window.omnikReportReady === true`, 0)
	var got struct{ Title, Failure, Anomaly string }
	page.Eval(`({title: document.getElementById("title").textContent, failure: document.querySelector("#failures td:last-child").textContent,
		anomaly: document.querySelectorAll("#failures table")[1].querySelector("td:last-child").textContent})`, &got)
	if got.Title != "a&b <img src=x onerror=alert(1)>.js" || got.Failure != `20× HTTP 503: <script>alert("x")</script>` ||
		got.Anomaly != `1× a chunk of modality "<b>video</b>"` {
		t.Errorf("hostile text not shown as text: %+v", got)
	}
	if bad := page.Unrendered(".chart"); len(bad) > 0 {
		t.Errorf("charts with nothing painted: %v", bad)
	}
	if errs := page.Errors(); len(errs) > 0 {
		t.Errorf("the page reported errors: %v", errs)
	}
}

// Names a server chose (stage names) reach the tooltips, which are HTML: they stay text.
func TestHostileStageNamesStayTextInTooltips(t *testing.T) {
	t.Parallel()
	hostile := `<img src=x onerror="document.body.setAttribute('data-pwned','yes')">`
	c := htmlreport.NewCollector()
	c.Add(&record.Record{Endpoint: record.EndpointChat, Status: 200, Scenario: "chat", End: 300 * time.Millisecond,
		TextChunks: []record.TextChunk{{At: 80 * time.Millisecond, Bytes: 1, Tokens: -1}, {At: 290 * time.Millisecond, Bytes: 1, Tokens: -1}},
		Stages: map[string]chunk.Stage{"0": {ID: 0, Name: hostile, FinalOutputType: "text",
			Values: map[string]float64{"stage_gen_time_ms": 280, "serving_time_to_first_output_ms": 80}}}})
	path := filepath.Join(t.TempDir(), "hostile.html")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Data(&metrics.Summary{TestRunDurationMs: 1000, Metrics: map[string]*metrics.MetricSummary{}}, time.Unix(1_780_000_000, 0)).WriteHTML(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	page := chromium.Open(t, path)
	page.WaitFor(`window.omnikReportReady === true`, 0)
	// Show the tooltip of every span and event of the waterfall: the stage's bar and its
	// first-output mark carry its name.
	// Hover the stage's bar (row 2: client, text chunks, then the stage) and then its
	// first-output mark: each tooltip shows the name, as text.
	for _, x := range []int{150, 80} {
		page.Eval(fmt.Sprintf(`(() => {
		  const chart = echarts.getInstanceByDom(document.querySelector("#waterfalls .chart"));
		  const [px, py] = chart.convertToPixel({xAxisIndex: 0, yAxisIndex: 0}, [%d, 2]);
		  chart.getZr().handler.dispatch("mousemove", {zrX: px, zrY: py});
		})()`, x), nil)
		page.WaitFor(fmt.Sprintf(`[...document.querySelectorAll("#waterfalls .panel div")].some(d => d.textContent.includes("<img src=x") && d.textContent.includes(%q))`,
			map[int]string{150: "gen 280 ms", 80: "first output"}[x]), 0)
	}
	var pwned bool
	page.Eval(`document.body.hasAttribute("data-pwned")`, &pwned)
	if pwned {
		t.Error("a stage name ran as HTML in a tooltip")
	}
	if errs := page.Errors(); len(errs) > 0 {
		t.Errorf("the page reported errors: %v", errs)
	}
}
