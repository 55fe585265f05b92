package testrun

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/js"
	"github.com/omnik-dev/omnik/metrics"
	httpmodule "github.com/omnik-dev/omnik/modules/http"
	"github.com/omnik-dev/omnik/modules/omni"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// moduleOptionKeys are option keys that belong to modules rather than the engine:
// options.omni, k6's top-level insecureSkipTLSVerify, which both modules follow, and
// options.sweep, omnik sweep's (a plain run leaves it alone).
var moduleOptionKeys = []string{"omni", insecureKey, "sweep"}

const insecureKey = "insecureSkipTLSVerify"

// Test is a loaded test: its script compiled, its options consolidated, its thresholds
// parsed and its omni module configured. Run runs it once; Close releases it.
type Test struct {
	opts       Options
	registry   *metrics.Registry
	runner     *js.Runner
	options    engine.Options
	trendStats []metrics.Stat
	thresholds []*metrics.Threshold
	module     *omni.Module
	http       *httpmodule.Module
	mockURL    string
	// serverMetrics are the server page's options: the script's under the flags'.
	serverMetrics ServerMetricsOptions
	// stream carries the run's records; origin is its time zero.
	stream *record.Stream
	origin time.Time
	// window is the part of the run the views measure (Options.Warmup).
	window *window
	// outcome is what Run found, once it returned.
	outcome *Outcome

	mu       sync.Mutex
	ran      bool        // Run was called
	run      *engine.Run // set once Run built it
	stopping bool        // Stop came before the run existed
}

// Load loads the script and layers its options: defaults < Config < the script's <
// OMNIK_* variables < Flags. Every failure is an exit-104 error (engine.ExitCodeOf).
func Load(o Options) (*Test, error) {
	o.defaults()
	t := &Test{opts: o, registry: metrics.NewRegistry(), stream: record.NewStream(), origin: time.Now()}
	t.window = newWindow(o.Warmup, t.origin)
	if err := t.newModules(); err != nil {
		return nil, err
	}
	if err := t.load(); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

func (t *Test) load() error {
	o := &t.opts
	if o.Omni.Mock != nil {
		url, err := o.Omni.Mock.StartLoopback()
		if err != nil {
			return err
		}
		t.mockURL = url
		fmt.Fprintf(o.Stderr, "omnik: target is SIMULATED: built-in vLLM-Omni simulator at %s (models: %v)\n", url, o.Omni.Mock.Models())
	}
	// Before the script loads there is no options.omni yet: init code (dataset()
	// calibrating against the server) already reaches the target of the flags.
	if err := t.configureOmni(nil); err != nil {
		return err
	}
	if o.BeforeLoad != nil {
		if err := o.BeforeLoad(t.module); err != nil {
			return engine.Invalid(err)
		}
	}
	runner, err := t.loadScript()
	if err != nil {
		return engine.Invalid(err)
	}
	t.runner = runner
	if t.options, err = t.consolidate(); err != nil {
		return err
	}
	// Checked here so a bad summaryTrendStats fails before anything runs.
	if t.trendStats, err = metrics.ParseTrendStats(t.options.SummaryTrendStats); err != nil {
		return engine.Invalid(err)
	}
	if err := t.configureOmni(t.options.Modules); err != nil {
		return err
	}
	if t.thresholds, err = metrics.ParseThresholds(t.options.Thresholds, o.Thresholds, lookupMetric(t.registry)); err != nil {
		return engine.Invalid(err)
	}
	if t.serverMetrics, err = t.serverMetricsOptions(t.options.Modules["omni"]); err != nil {
		return err
	}
	if judged := t.serverThresholds(); len(judged) > 0 && t.serverMetrics.Off {
		return engine.Invalid(fmt.Errorf("thresholds on %s are judged on the server's page, and --server-metrics=off reads none", strings.Join(judged, ", ")))
	}
	if o.SummaryExport != "" {
		// Fail now, not after an hour of load, when the file cannot be written.
		if err := checkWritable(o.SummaryExport); err != nil {
			return engine.Invalid(fmt.Errorf("--summary-export: %w", err))
		}
	}
	return nil
}

func (t *Test) loadScript() (*js.Runner, error) {
	s := t.opts.Script
	seg := t.opts.Segment
	opts := append([]js.Option{js.WithEnv(scriptEnv(t.opts.Env)), js.WithLogger(t.opts.Log), js.WithRegistry(t.registry),
		js.WithIDInTest(func(id uint64) uint64 {
			if id == 0 { // the setup/teardown runtime
				return 0
			}
			return uint64(seg.Nth(int64(id)-1)) + 1
		}),
		js.WithModule("omni", t.module.JS()), js.WithModule("omnik/http", t.http.JS()),
		js.WithModuleExtension("omnik/data", t.module.DataExtension())}, s.JS...)
	if s.Source != nil {
		return js.LoadSource(s.Name, s.Source, opts...)
	}
	return js.Load(s.Path, opts...)
}

// consolidate layers the options.
func (t *Test) consolidate() (engine.Options, error) {
	o := &t.opts
	var layers []engine.Options
	if o.Config != "" {
		data, err := os.ReadFile(o.Config)
		if err != nil {
			return engine.Options{}, engine.Invalid(fmt.Errorf("--config: %w", err))
		}
		l, err := t.parseLayer("config file "+o.Config, data)
		if err != nil {
			return engine.Options{}, err
		}
		layers = append(layers, l)
	}
	scriptOptions := t.runner.Options()
	if t.opts.Script.Options != nil {
		scriptOptions = t.opts.Script.Options
	}
	script, err := t.parseLayer("script options", scriptOptions)
	if err != nil {
		return engine.Options{}, err
	}
	// A script's files are beside it, as open() finds them.
	scriptPath := t.opts.Script.Path
	if t.opts.Script.Source != nil {
		scriptPath = t.opts.Script.Name
	}
	script.ResolvePaths(filepath.Dir(scriptPath))
	env, err := engine.OptionsFromEnv(os.Environ())
	if err != nil {
		return engine.Options{}, err
	}
	o.Flags.Source = "command-line flags"
	return engine.Consolidate(t.runner.HasExport, append(layers, script, env, o.Flags)...)
}

func (t *Test) parseLayer(source string, data []byte) (engine.Options, error) {
	l, warnings, err := engine.ParseOptions(source, data, moduleOptionKeys)
	for _, w := range warnings {
		t.opts.Log.Warn(w)
	}
	return l, err
}

// configureOmni applies the modules' options (options.omni and the top-level
// insecureSkipTLSVerify), the environment, the flags and the simulator, lowest first.
func (t *Test) configureOmni(modules map[string]json.RawMessage) error {
	cfg, err := omni.ParseConfig(modules["omni"])
	if err != nil {
		return engine.Invalid(err)
	}
	if raw := modules[insecureKey]; raw != nil {
		var insecure bool
		if err := json.Unmarshal(raw, &insecure); err != nil {
			return engine.Invalid(fmt.Errorf("option %q: want true or false, got %s", insecureKey, raw))
		}
		cfg.InsecureSkipTLSVerify = cfg.InsecureSkipTLSVerify || insecure
	}
	o := t.opts.Omni
	if o.BaseURL != "" {
		cfg.BaseURL = o.BaseURL
	}
	if o.Model != "" {
		cfg.Model = o.Model
	}
	if o.InsecureSkipTLSVerify != nil {
		cfg.InsecureSkipTLSVerify = *o.InsecureSkipTLSVerify
	}
	cfg.TLS = cfg.TLS.Over(o.TLS)
	if t.mockURL != "" {
		cfg.BaseURL = t.mockURL
	}
	if err := t.module.Configure(cfg); err != nil {
		return engine.Invalid(err)
	}
	// omnik/http's relative URLs ("/health") reach the same server, with the same TLS.
	t.http.SetTLSConfig(t.module.TLSConfig())
	if err := t.http.SetBaseURL(cfg.BaseURL); err != nil {
		return engine.Invalid(err)
	}
	return nil
}

// Options are the consolidated options.
func (t *Test) Options() engine.Options { return t.options }

// Plan is the execution plan of the run's segment.
func (t *Test) Plan() (*engine.ExecutionPlan, error) {
	return engine.NewPlan(t.options, t.opts.Segment)
}

// Script is the loaded script.
func (t *Test) Script() *js.Runner { return t.runner }

// Close releases the clients' connections and stops the simulator.
func (t *Test) Close() {
	t.module.Close()
	t.http.Close()
	if t.opts.Omni.Mock != nil {
		_ = t.opts.Omni.Mock.Close()
	}
}

// scriptEnv is __ENV: the process environment plus the -e pairs.
func scriptEnv(extra map[string]string) map[string]string {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	for k, v := range extra {
		env[k] = v
	}
	return env
}

// checkWritable fails when a file could not be created at path, without touching a file
// already there (a previous run's summary stays until this run replaces it).
func checkWritable(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".omnik-check-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

// Thresholds are the thresholds the run judges (none with Options.NoThresholds).
func (t *Test) Thresholds() []*metrics.Threshold { return t.judged() }
