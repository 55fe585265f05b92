package htmlreport_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/htmlreport"
	"github.com/omnik-dev/omnik/internal/chromium"
	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// checkInBrowser opens a report in headless Chromium, offline, and checks what a reader
// would see: no console error, exception or request; every chart drawn; a screenshot
// that is not blank.
func checkInBrowser(t *testing.T, path string) {
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
}

func TestReportRendersInABrowser(t *testing.T) {
	t.Parallel()
	_, path := reportOf(t, fixture)
	checkInBrowser(t, path)
}

// A run with nothing to draw but failures still makes a page without errors.
func TestReportOfOnlyFailuresRendersInABrowser(t *testing.T) {
	t.Parallel()
	c := htmlreport.NewCollector()
	for i := range 20 {
		c.Add(&record.Record{Endpoint: record.EndpointChat, Status: 503, Offset: time.Duration(i) * 100 * time.Millisecond, End: time.Millisecond,
			Err: &record.Error{Kind: record.KindHTTPStatus, Message: `HTTP 503: <script>alert("x")</script>`}})
	}
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
	var got struct{ Title, Failure string }
	page.Eval(`({title: document.getElementById("title").textContent, failure: document.querySelector("#failures td:last-child").textContent})`, &got)
	if got.Title != "a&b <img src=x onerror=alert(1)>.js" || got.Failure != `20× HTTP 503: <script>alert("x")</script>` {
		t.Errorf("hostile text not shown as text: %+v", got)
	}
	if bad := page.Unrendered(".chart"); len(bad) > 0 {
		t.Errorf("charts with nothing painted: %v", bad)
	}
	if errs := page.Errors(); len(errs) > 0 {
		t.Errorf("the page reported errors: %v", errs)
	}
}
