package promwrite_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/internal/promtest"
	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/modules/omni"
	"github.com/omnik-dev/omnik/promwrite"
)

const dashboardFile = "../examples/grafana/omnik.json"

// dashboard is what the tests read of a Grafana dashboard.
type dashboard struct {
	SchemaVersion int `json:"schemaVersion"`
	Templating    struct {
		List []struct {
			Name, Type, Definition string
			Query                  any
		} `json:"list"`
	} `json:"templating"`
	Panels []panel `json:"panels"`
}

type panel struct {
	Title   string `json:"title"`
	Targets []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
	Panels []panel `json:"panels"` // a row's
}

func readDashboard(t *testing.T) dashboard {
	t.Helper()
	b, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	return d
}

// panels are every panel, those in rows included.
func (d dashboard) panels() []panel {
	var out []panel
	var walk func([]panel)
	walk = func(ps []panel) {
		for _, p := range ps {
			out = append(out, p)
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	return out
}

// produced are the series names a run's metrics (the built-ins and the omni module's)
// and the output itself send, by the output's own naming.
func produced() map[string]bool {
	r := metrics.NewRegistry()
	metrics.RegisterBuiltins(r)
	omni.RegisterMetrics(r)
	names := map[string]bool{}
	for _, m := range r.All() {
		for _, n := range promwrite.SeriesNames(m) {
			names[n] = true
		}
	}
	for _, n := range promwrite.SelfSeriesNames() {
		names[n] = true
	}
	return names
}

var seriesNameRe = regexp.MustCompile(`\bomnik_[A-Za-z0-9_]+`)

// Every series the dashboard queries is one the output sends; every panel filters on
// the testid variable; every quantile reads native and classic histograms alike.
func TestDashboardQueriesWhatTheOutputSends(t *testing.T) {
	t.Parallel()
	d := readDashboard(t)
	if d.SchemaVersion < 36 {
		t.Errorf("schemaVersion %d", d.SchemaVersion)
	}
	names := produced()
	var exprs []string
	hasTestID := false
	for _, v := range d.Templating.List {
		if v.Name == "testid" {
			hasTestID = true
			q, _ := json.Marshal(v.Query)
			exprs = append(exprs, v.Definition, string(q))
		}
	}
	if !hasTestID {
		t.Error("no testid variable")
	}
	for _, p := range d.panels() {
		var quantiles, classic int
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
			if !strings.Contains(tg.Expr, `testid=~"$testid"`) {
				t.Errorf("%s: %s does not filter on $testid", p.Title, tg.Expr)
			}
			if strings.Contains(tg.Expr, "histogram_quantile") {
				quantiles++
				if strings.Contains(tg.Expr, "_bucket") {
					classic++
					if !regexp.MustCompile(`by \(le[,)]`).MatchString(tg.Expr) {
						t.Errorf("%s: a classic quantile not by le: %s", p.Title, tg.Expr)
					}
				}
			}
		}
		if quantiles > 0 && 2*classic != quantiles {
			t.Errorf("%s: %d quantiles, %d of them classic: want each in both forms", p.Title, quantiles, classic)
		}
	}
	for _, e := range exprs {
		for _, n := range seriesNameRe.FindAllString(e, -1) {
			if !names[n] {
				t.Errorf("%s is not a series the output sends (in %s)", n, e)
			}
		}
	}
}

// checkDashboard evaluates every query of the dashboard on a real Prometheus that holds a
// run, as Grafana would ($testid, $__rate_interval filled in), and wants data in every
// panel but those the run has nothing for.
func checkDashboard(t *testing.T, prom *promtest.Server, testid string, at time.Time) {
	t.Helper()
	// The e2e run has no arrival-rate executor: nothing drops iterations.
	noData := map[string]bool{"Dropped iterations": true}
	for _, p := range readDashboard(t).panels() {
		if len(p.Targets) == 0 {
			continue
		}
		results := 0
		for _, tg := range p.Targets {
			expr := strings.NewReplacer("$testid", testid, "$__rate_interval", "1m").Replace(tg.Expr)
			results += len(prom.Query(t, expr, at))
		}
		if (results > 0) == noData[p.Title] {
			t.Errorf("panel %q: %d results", p.Title, results)
		}
	}
}
