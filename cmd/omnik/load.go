package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/js"
	"github.com/omnik-dev/omnik/metrics"
	"github.com/spf13/pflag"
)

// moduleOptionKeys are option keys that belong to modules rather than the engine.
var moduleOptionKeys = []string{"omni"}

// loadedTest is a script with its consolidated options.
type loadedTest struct {
	runner     *js.Runner
	opts       engine.Options
	trendStats []metrics.Stat
}

// loadTest loads the script and layers its options: defaults < --config < script <
// OMNIK_* < flags. Every failure is an exit-104 error.
func loadTest(path string, f *testFlags, fs *pflag.FlagSet, log *slog.Logger, jsOpts ...js.Option) (*loadedTest, error) {
	env, err := scriptEnv(f.env)
	if err != nil {
		return nil, err
	}
	r, err := js.Load(path, append([]js.Option{js.WithEnv(env), js.WithLogger(log)}, jsOpts...)...)
	if err != nil {
		return nil, invalid(err)
	}
	var layers []engine.Options
	if f.config != "" {
		data, err := os.ReadFile(f.config)
		if err != nil {
			return nil, invalid(fmt.Errorf("--config: %w", err))
		}
		l, warns, err := engine.ParseOptions("config file "+f.config, data, moduleOptionKeys)
		if err != nil {
			return nil, err
		}
		warnAll(log, warns)
		layers = append(layers, l)
	}
	script, warns, err := engine.ParseOptions("script options", r.Options(), moduleOptionKeys)
	if err != nil {
		return nil, err
	}
	warnAll(log, warns)
	envL, err := engine.OptionsFromEnv(os.Environ())
	if err != nil {
		return nil, err
	}
	cli, err := f.cliLayer(fs)
	if err != nil {
		return nil, err
	}
	layers = append(layers, script, envL, cli)
	opts, err := engine.Consolidate(r.HasExport, layers...)
	if err != nil {
		return nil, err
	}
	// Checked here so a bad summaryTrendStats fails before anything runs.
	stats := metrics.DefaultTrendStats()
	if len(opts.SummaryTrendStats) > 0 {
		if stats, err = metrics.ParseTrendStats(opts.SummaryTrendStats); err != nil {
			return nil, invalid(err)
		}
	}
	return &loadedTest{runner: r, opts: opts, trendStats: stats}, nil
}

func warnAll(log *slog.Logger, warnings []string) {
	for _, w := range warnings {
		log.Warn(w)
	}
}

// invalid marks an error as exit 104 unless it already carries a code.
func invalid(err error) error {
	var coded interface{ ExitCode() engine.ExitCode }
	if errors.As(err, &coded) {
		return err
	}
	return &engine.ExitError{Code: engine.ExitInvalidConfig, Err: err}
}
