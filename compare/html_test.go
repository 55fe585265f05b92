package compare

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omnik-dev/omnik/htmlreport"
	"github.com/omnik-dev/omnik/internal/chromium"
	"github.com/omnik-dev/omnik/testrun"
)

// --html draws both runs: full CDFs from result files, coarse ones through a summary
// export's percentiles, with the rows and gates --json writes; and the page opens in a
// browser with every chart drawn and no error.
func TestCompareHTMLOverlaysBothRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	results, _ := runMock(t, dir, "four", chatScript("4"))
	more, summary := runMock(t, dir, "eight", chatScript("8"))
	for _, tc := range []struct {
		name, base, next string
		coarse           bool
	}{{"result files", results, more, false}, {"a result file and a summary export", results, summary, true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "cmp.html")
			code, _, log := compareRun(t, Options{Base: tc.base, New: tc.next, HTML: path, FailOn: []string{"serving.completed > 100"}})
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, log)
			}
			page, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			data, ok := htmlreport.DataSection(page)
			if !ok {
				t.Fatal("no data section")
			}
			var d struct {
				Base, New htmlreport.Side
				Cmp       struct {
					Rows  []json.RawMessage `json:"rows"`
					Gates []struct {
						Expr    string `json:"expr"`
						Crossed bool   `json:"crossed"`
					} `json:"gates"`
				} `json:"comparison"`
			}
			if err := json.Unmarshal(data, &d); err != nil {
				t.Fatal(err)
			}
			if len(d.Cmp.Rows) < 20 || len(d.Cmp.Gates) != 1 || d.Cmp.Gates[0].Crossed {
				t.Errorf("%d rows, gates %+v", len(d.Cmp.Rows), d.Cmp.Gates)
			}
			if d.Base.Coarse || d.New.Coarse != tc.coarse || !hasMeasure(d.Base.Dists, "ttft") || !hasMeasure(d.New.Dists, "ttft") {
				t.Errorf("base %d distributions (coarse %v), new %d (coarse %v)", len(d.Base.Dists), d.Base.Coarse, len(d.New.Dists), d.New.Coarse)
			}
			if d.Base.Title != "four.js" || d.New.Title != "eight.js" {
				t.Errorf("titles %q, %q", d.Base.Title, d.New.Title)
			}
			browser := chromium.Open(t, path)
			browser.WaitFor(`window.omnikReportReady === true`, 0)
			var charts int
			browser.Eval(`window.omnikCharts`, &charts)
			if bad := browser.Unrendered(".chart"); charts == 0 || len(bad) > 0 {
				t.Errorf("%d charts, unpainted: %v", charts, bad)
			}
			if errs := browser.Errors(); len(errs) > 0 {
				t.Errorf("the page reported errors: %v", errs)
			}
		})
	}
}

func hasMeasure(ds []htmlreport.Distribution, measure string) bool {
	for _, d := range ds {
		if d.Measure == measure && len(d.Points) >= 2 {
			return true
		}
	}
	return false
}

// A run without one successful request has no distribution: the page still draws the
// other run's comparison, without an error.
func TestCompareHTMLAgainstARunThatFailedEverything(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	results, _ := runMock(t, dir, "four", chatScript("4"))
	failed := filepath.Join(dir, "failed.ndjson")
	test, err := testrun.Load(testrun.Options{Script: testrun.Script{Name: "failed.js", Source: []byte(chatScript("2"))},
		Outs: []string{"json=" + failed}, Quiet: true, Log: slog.New(slog.DiscardHandler),
		Omni: testrun.OmniOptions{BaseURL: "http://127.0.0.1:9"}})
	if err != nil {
		t.Fatal(err)
	}
	defer test.Close()
	if _, err := test.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "cmp.html")
	if code, _, log := compareRun(t, Options{Base: results, New: failed, HTML: path}); code != 0 {
		t.Fatalf("exit %d:\n%s", code, log)
	}
	page := chromium.Open(t, path)
	page.WaitFor(`window.omnikReportReady === true`, 0)
	var text string
	page.Eval(`document.getElementById("distributions").textContent`, &text)
	if !strings.Contains(text, "no distribution in common") {
		t.Errorf("distributions section: %q", text)
	}
	if errs := page.Errors(); len(errs) > 0 {
		t.Errorf("the page reported errors: %v", errs)
	}
}
