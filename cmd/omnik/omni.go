package main

import (
	"fmt"
	"github.com/omnik-dev/omnik/engine"

	"github.com/omnik-dev/omnik/modules/omni/report"
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
	bench report.SectionOptions
}

func (f *omniFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.baseURL, "base-url", "", "server for the omni module (overrides options.omni.baseURL and OMNI_BASE_URL)")
	fs.StringVar(&f.model, "model", "", "model name (default: the first of GET /v1/models)")
	fs.BoolVar(&f.mock, "mock", false, "run against the built-in simulated vLLM-Omni server")
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
func (f *omniFlags) options() (testrun.OmniOptions, error) {
	o := testrun.OmniOptions{BaseURL: f.baseURL, Model: f.model}
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
