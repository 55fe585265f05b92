package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/modules/httpdebug"
	"github.com/omnik-dev/omnik/modules/omni/report"
	"github.com/omnik-dev/omnik/modules/tlsclient"
	"github.com/omnik-dev/omnik/testrun"
	"github.com/spf13/pflag"
)

// omniFlags configure the omni module and the simulator for `run`.
type omniFlags struct {
	baseURL           string
	model             string
	mock              bool
	mockFlags         mockFlags
	noStageSummary    bool
	percentileMetrics string
	metricPercentiles string
	// bench sets what only `omnik bench` prints: goodput, concurrency cap, configured rate.
	bench   report.SectionOptions
	tls     tlsFlags
	servers serverMetricsFlags
}

func (f *omniFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.baseURL, "base-url", "", "server for the omni module (overrides options.omni.baseURL and OMNI_BASE_URL)")
	fs.StringVar(&f.model, "model", "", "model name (default: the first of GET /v1/models)")
	fs.BoolVar(&f.mock, "mock", false, "run against the built-in simulated vLLM-Omni server")
	f.tls.register(fs)
	f.servers.register(fs)
	f.mockFlags.register(fs, "mock-")
	f.registerSection(fs, "all with data", "99")
}

// registerSection registers the flags that shape the Serving/Stage blocks, with their
// defaults: what the metrics default means, and the percentiles.
func (f *omniFlags) registerSection(fs *pflag.FlagSet, metricsDefault, percentilesDefault string) {
	fs.BoolVar(&f.noStageSummary, "no-stage-summary", false, "hide the Stage Benchmark Result block")
	fs.StringVar(&f.percentileMetrics, "percentile-metrics", "", "metrics with percentiles in the Serving block, e.g. ttft,tpot,itl (default: "+metricsDefault+")")
	fs.StringVar(&f.metricPercentiles, "metric-percentiles", percentilesDefault, "percentiles printed in the Serving block, e.g. 50,90,99")
}

// section parses the block flags over the bench ones.
func (f *omniFlags) section() (report.SectionOptions, error) {
	s := f.bench
	var err error
	if f.percentileMetrics != "" {
		if s.Metrics, err = report.ParseMetrics(f.percentileMetrics); err != nil {
			return s, engine.Invalid(fmt.Errorf("--percentile-metrics: %w", err))
		}
	}
	if f.metricPercentiles != "" {
		if s.Percentiles, err = report.ParsePercentiles(f.metricPercentiles); err != nil {
			return s, engine.Invalid(fmt.Errorf("--metric-percentiles: %w", err))
		}
	}
	s.NoStages = f.noStageSummary
	return s, nil
}

// options maps the flags onto the run's omni options; with --mock it builds the simulator.
func (f *omniFlags) options(fs *pflag.FlagSet) (testrun.OmniOptions, error) {
	o := testrun.OmniOptions{BaseURL: f.baseURL, Model: f.model}
	if err := f.tls.apply(fs, &o); err != nil {
		return o, err
	}
	o.ServerMetrics = f.servers.options()
	var err error
	if o.Section, err = f.section(); err != nil {
		return o, err
	}
	if f.mock {
		if o.Mock, err = f.mockFlags.server(); err != nil {
			return o, engine.Invalid(err)
		}
	}
	return o, nil
}

// serverMetricsFlags are --server-metrics and its companions.
type serverMetricsFlags struct {
	page     string
	interval time.Duration
	all      bool
}

func (f *serverMetricsFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.page, "server-metrics", "", "the server's Prometheus page to scrape before, during and after the run, for the Server metrics block: =URL, or =off (default: the target's /metrics, when it answers)")
	fs.Lookup("server-metrics").NoOptDefVal = "default"
	fs.DurationVar(&f.interval, "server-metrics-interval", 0, "time between server pages during the run (default 1s)")
	fs.BoolVar(&f.all, "server-metrics-all", false, "keep and print every family of the server's page, not only vLLM's and vLLM-Omni's")
}

// strayURL refuses a URL left as an argument after a bare --server-metrics: pflag
// reads "--server-metrics http://…" as the flag alone, then an argument.
func (f *serverMetricsFlags) strayURL(args []string) error {
	if f.page != "default" {
		return nil
	}
	for _, a := range args {
		if strings.HasPrefix(a, "http://") || strings.HasPrefix(a, "https://") {
			return &engine.OptionsError{Msg: fmt.Sprintf("%q follows --server-metrics: write --server-metrics=URL, with the =", httpdebug.RedactRawURL(a))}
		}
	}
	return nil
}

func (f *serverMetricsFlags) options() testrun.ServerMetricsOptions {
	o := testrun.ServerMetricsOptions{Interval: f.interval, All: f.all}
	switch f.page {
	case "", "default":
	case "off", "false", "none":
		o.Off = true
	default:
		o.URL = f.page
	}
	return o
}

// tlsFlags are the TLS settings of run and bench, over the script's.
type tlsFlags struct {
	insecure bool
	files    tlsclient.Files
}

func (f *tlsFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.insecure, "insecure-skip-tls-verify", false, "accept any server certificate (self-signed staging servers); overrides insecureSkipTLSVerify in the options")
	fs.StringVar(&f.files.CAFile, "tls-ca-file", "", "PEM bundle of CA certificates to trust in addition to the system's roots")
	fs.StringVar(&f.files.CertFile, "tls-cert", "", "PEM client certificate (with --tls-key) for servers that require mutual TLS")
	fs.StringVar(&f.files.KeyFile, "tls-key", "", "PEM private key of --tls-cert")
}

// apply sets the flags given: --insecure-skip-tls-verify (or bench's --insecure, vllm's
// name) even when false, and the files. A certificate or a key alone is refused here,
// where the flags can be named.
func (f *tlsFlags) apply(fs *pflag.FlagSet, o *testrun.OmniOptions) error {
	for _, name := range []string{"insecure-skip-tls-verify", "insecure"} {
		if fs.Changed(name) {
			o.InsecureSkipTLSVerify = &f.insecure
		}
	}
	if (f.files.CertFile == "") != (f.files.KeyFile == "") {
		return &engine.OptionsError{Msg: "--tls-cert and --tls-key go together: give both"}
	}
	o.TLS = f.files
	return nil
}
