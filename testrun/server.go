package testrun

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/modules/omni"
	"github.com/omnik-dev/omnik/servermetrics"
)

// ServerMetricsOptions are --server-metrics and its companions: the server's own view
// of the run, scraped from its Prometheus page.
type ServerMetricsOptions struct {
	// URL is the page; "" is the target's /metrics, scraped when it answers.
	URL string
	// Off scrapes nothing (--server-metrics=off).
	Off bool
	// Interval is the time between pages during the run (servermetrics.DefaultInterval).
	Interval time.Duration
	// All keeps every family of the page, not only vLLM's and vLLM-Omni's.
	All bool
}

// scriptServerMetrics is options.omni.serverMetrics: the page a scenario expects, so a
// script that gates on `server:` thresholds says where they are read.
type scriptServerMetrics struct {
	URL      string        `json:"url"` // a page, or "off"
	Interval omni.Duration `json:"interval"`
	All      bool          `json:"all"`
}

// serverMetricsOptions layers the flags over options.omni.serverMetrics and checks them.
func (t *Test) serverMetricsOptions(rawOmni json.RawMessage) (ServerMetricsOptions, error) {
	var script struct {
		ServerMetrics scriptServerMetrics `json:"serverMetrics"`
	}
	if len(rawOmni) > 0 {
		if err := json.Unmarshal(rawOmni, &script); err != nil {
			return ServerMetricsOptions{}, engine.Invalid(fmt.Errorf("options.omni.serverMetrics: %w", err))
		}
	}
	s := script.ServerMetrics
	o := ServerMetricsOptions{URL: s.URL, Interval: time.Duration(s.Interval), All: s.All}
	if s.URL == "off" {
		o.URL, o.Off = "", true
	}
	flags := t.opts.Omni.ServerMetrics
	if flags.URL != "" || flags.Off {
		o.URL, o.Off = flags.URL, flags.Off
	}
	if flags.Interval != 0 {
		o.Interval = flags.Interval
	}
	o.All = o.All || flags.All
	return o, o.check()
}

// minInterval is the shortest time between pages: AIPerf's 100 ms.
const minInterval = 100 * time.Millisecond

// check fails at load, before any load is sent, on a page URL that cannot
// be scraped.
func (o ServerMetricsOptions) check() error {
	if o.Interval < 0 || (o.Interval > 0 && o.Interval < minInterval) {
		return engine.Invalid(fmt.Errorf("server metrics interval %s (--server-metrics-interval, options.omni.serverMetrics.interval): want %s or more (each page costs the server a render)", o.Interval, minInterval))
	}
	if o.Off || o.URL == "" {
		return nil
	}
	if _, err := servermetrics.NewScraper(servermetrics.Options{URL: o.URL}, nil); err != nil {
		return engine.Invalid(err)
	}
	return nil
}

// serverScraper reads the server's page before the run. It returns nil, having said so
// in one line, when scraping is off, or when the target's default page does not answer
// with vLLM metrics (a server without /metrics gets no block and no error). The page
// read is returned for the caller to publish once the result file's header is out.
func (t *Test) serverScraper(ctx context.Context) (*servermetrics.Scraper, servermetrics.Scrape) {
	o := t.serverMetrics
	cfg := t.module.Config()
	if o.Off || (o.URL == "" && cfg.BaseURL == "") {
		return nil, servermetrics.Scrape{}
	}
	page := o.URL
	if page == "" {
		page = strings.TrimRight(cfg.BaseURL, "/") + "/metrics"
	}
	opts := servermetrics.Options{URL: page, Interval: o.Interval, All: o.All, TLS: t.module.TLSConfig()}
	if sameHost(page, cfg.BaseURL) {
		// The target's credentials go to the target's host only.
		opts.Header = cfg.Header()
	}
	sc, err := servermetrics.NewScraper(opts, func() time.Duration { return time.Since(t.origin) })
	if err != nil {
		t.opts.Log.Warn(err.Error())
		return nil, servermetrics.Scrape{}
	}
	first := sc.Read(ctx, servermetrics.Before)
	why := ""
	switch {
	case o.URL == "" && first.Err != "":
		why = first.Detail
	case o.URL == "" && len(first.Points) == 0 && !o.All:
		why = "no vLLM or vLLM-Omni families"
	case first.Err != "":
		t.opts.Log.Warn(fmt.Sprintf("server metrics: %s: %s; omnik keeps trying every %s", sc.URL(), first.Detail, sc.Interval()))
	}
	if why == "" {
		return sc, first
	}
	sc.Close()
	if judged := t.serverThresholds(); len(judged) > 0 {
		// Said louder: these thresholds will fail for want of data.
		t.opts.Log.Warn(fmt.Sprintf("server metrics: %s: %s; thresholds on it (%s) will fail with no data", sc.URL(), why, strings.Join(judged, ", ")))
	} else {
		t.opts.Log.Info(fmt.Sprintf("server metrics: %s: %s; no Server metrics block (--server-metrics=URL names another page, --server-metrics=off skips this)", sc.URL(), why))
	}
	return nil, servermetrics.Scrape{}
}

// serverThresholds names the judged thresholds on server families.
func (t *Test) serverThresholds() []string {
	var out []string
	for _, th := range t.judged() {
		if th.Metric.Kind == metrics.External {
			out = append(out, th.SinkName())
		}
	}
	return out
}

// phase is where the run is, for the server's pages: VU init and setup() are before
// it, teardown after.
func (t *Test) phase() servermetrics.Phase {
	t.mu.Lock()
	run := t.run
	t.mu.Unlock()
	if run == nil {
		return servermetrics.Before
	}
	switch began, ended := run.ScenariosRunning(); {
	case !began || !t.window.measures(time.Now()):
		return servermetrics.Before
	case ended:
		return servermetrics.After
	}
	return servermetrics.During
}

func sameHost(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && ua.Scheme == ub.Scheme && ua.Host == ub.Host
}

// serverFeed hands each page to the run's window and to the result files.
func serverFeed(v *views, outs metrics.Outputs) func(servermetrics.Scrape) {
	enc := servermetrics.NewEncoder()
	return func(sc servermetrics.Scrape) {
		v.server.Add(sc)
		outs.AddEntry(metrics.Entry{Type: servermetrics.EntryType, Data: enc.Entry(sc)})
	}
}

// lookupMetric finds a threshold's metric: a registered one, or a server family.
func lookupMetric(reg *metrics.Registry) func(string) *metrics.Metric {
	return func(name string) *metrics.Metric {
		if m := reg.Get(name); m != nil {
			return m
		}
		return servermetrics.Metric(name)
	}
}
