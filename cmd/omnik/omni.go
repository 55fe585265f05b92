package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/js"
	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/mock"
	"github.com/omnik-dev/omnik/modules/omni"
	"github.com/omnik-dev/omnik/modules/omni/report"
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
	bench omni.SectionOptions
}

func (f *omniFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.baseURL, "base-url", "", "server for the omni module (overrides options.omni.baseURL and OMNI_BASE_URL)")
	fs.StringVar(&f.model, "model", "", "model name (default: the first of GET /v1/models)")
	fs.BoolVar(&f.mock, "mock", false, "run against the built-in simulated vLLM-Omni server")
	f.mockFlags.register(fs, "mock-")
	fs.BoolVar(&f.noStageSummary, "no-stage-summary", false, "hide the Stage Benchmark Result block")
	fs.StringVar(&f.percentileMetrics, "percentile-metrics", "", "metrics with percentiles in the Serving block, e.g. ttft,tpot,itl (default: all with data)")
	fs.StringVar(&f.metricPercentiles, "metric-percentiles", "99", "percentiles printed in the Serving block, e.g. 50,90,99")
}

// omniRun is the omni module's part of one run: the module, and the simulator with --mock.
type omniRun struct {
	flags     *omniFlags
	module    *omni.Module
	server    *mock.Server
	mockURL   string
	jsOptions []js.Option
	out       metrics.Outputs
}

func (f *omniFlags) setup(reg *metrics.Registry, log *slog.Logger, stderr io.Writer) (*omniRun, error) {
	o := &omniRun{flags: f}
	var (
		section omni.SectionOptions
		err     error
	)
	if f.percentileMetrics != "" {
		if section.Metrics, err = report.ParseMetrics(f.percentileMetrics); err != nil {
			return nil, invalid(fmt.Errorf("--percentile-metrics: %w", err))
		}
	}
	if f.metricPercentiles != "" {
		if section.Percentiles, err = report.ParsePercentiles(f.metricPercentiles); err != nil {
			return nil, invalid(fmt.Errorf("--metric-percentiles: %w", err))
		}
	}
	section.NoStages = f.noStageSummary
	section.Goodput = f.bench.Goodput
	section.MaxConcurrency = f.bench.MaxConcurrency
	section.RequestRate = f.bench.RequestRate
	section.Detailed = f.bench.Detailed
	o.module = omni.New(reg, omni.WithSection(section), omni.WithWarn(func(msg string) { log.Warn(msg) }), omni.WithRecords(func(r any) {
		if o.out != nil {
			o.out.AddRecord(r)
		}
	}))
	o.jsOptions = []js.Option{js.WithModule("omni", o.module.JS()),
		js.WithModuleExtension("omnik/data", o.module.DataExtension())}
	if f.mock {
		if o.server, err = f.mockFlags.server(); err != nil {
			return nil, invalid(err)
		}
		if o.mockURL, err = o.server.StartLoopback(); err != nil {
			return nil, err
		}
		fmt.Fprintf(stderr, "omnik: target is SIMULATED: built-in vLLM-Omni simulator at %s (models: %v)\n", o.mockURL, o.server.Models())
	}
	if err := o.configureFrom(nil); err != nil {
		return nil, err
	}
	return o, nil
}

// configure applies options.omni, the environment and the flags, lowest first.
func (o *omniRun) configure(opts engine.Options) error {
	return o.configureFrom(opts.Modules["omni"])
}

// configureFrom layers options.omni (raw), the environment, the flags and --mock. Before
// the script loads there is no options.omni yet: setup configures from the rest, so
// init code (dataset() calibrating against the server) already reaches the target.
func (o *omniRun) configureFrom(raw json.RawMessage) error {
	cfg, err := omni.ParseConfig(raw)
	if err != nil {
		return invalid(err)
	}
	if o.flags.baseURL != "" {
		cfg.BaseURL = o.flags.baseURL
	}
	if o.flags.model != "" {
		cfg.Model = o.flags.model
	}
	if o.mockURL != "" {
		cfg.BaseURL = o.mockURL
	}
	o.module.Configure(cfg)
	return nil
}

func (o *omniRun) recordsTo(outs metrics.Outputs) { o.out = outs }

func (o *omniRun) sections() []metrics.Section {
	return []metrics.Section{o.module.Section()}
}

func (o *omniRun) close() {
	o.module.Close()
	if o.server != nil {
		_ = o.server.Close()
	}
}
