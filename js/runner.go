// Package js is omnik's JavaScript runtime: it loads and transforms scripts, runs one goja
// runtime and event loop per VU, separates init from VU code and hosts the built-in
// modules (omnik, omnik/metrics, omnik/execution, omnik/data, omnik/summary) and those
// registered by other packages (omni, omnik/http).
package js

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"sync"

	"github.com/omnik-dev/omnik/metrics"
)

// Module builds a module's exports in one runtime; it is called once per runtime that
// imports it. Run-wide state (connection pools, caches) lives in the closure, not in
// globals, so several runs can share a process.
type Module func(vu *VU) (*Exports, error)

// Option configures a Runner.
type Option func(*config)

type config struct {
	modules    map[string]Module
	extensions map[string][]Module
	env        map[string]string
	tags       map[string]string
	logger     *slog.Logger
	registry   *metrics.Registry
	builtin    *metrics.Builtin
	collector  metrics.Collector
	controller Controller
	options    json.RawMessage // consolidated options, frozen for test.options
	idInTest   func(id uint64) uint64
}

// WithModule registers a module under an import name.
func WithModule(name string, m Module) Option { return func(c *config) { c.modules[name] = m } }

// WithIDInTest numbers the VUs test-wide (exec.vu.idInTest) from their 1-based instance
// ids: a piece of a distributed run numbers its VUs among all the pieces'.
func WithIDInTest(f func(id uint64) uint64) Option { return func(c *config) { c.idInTest = f } }

// WithModuleExtension adds named exports to a module, built-in or not: other packages
// extend omnik/data with their dataset loaders without js importing them.
func WithModuleExtension(name string, m Module) Option {
	return func(c *config) { c.extensions[name] = append(c.extensions[name], m) }
}

// WithEnv sets __ENV (before per-scenario env).
func WithEnv(env map[string]string) Option { return func(c *config) { c.env = env } }

// WithTags sets the run's global tags.
func WithTags(tags map[string]string) Option { return func(c *config) { c.tags = tags } }

// WithLogger sets where console output and warnings go.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithRegistry sets the run's metric registry (and registers the built-in metrics in it).
func WithRegistry(r *metrics.Registry) Option {
	return func(c *config) { c.registry, c.builtin = r, metrics.RegisterBuiltins(r) }
}

// WithCollector sets where VUs send their samples.
func WithCollector(col metrics.Collector) Option { return func(c *config) { c.collector = col } }

// WithController connects scripts to the running engine (omnik/execution).
func WithController(ctl Controller) Option { return func(c *config) { c.controller = ctl } }

// WithConsolidatedOptions sets what test.options shows.
func WithConsolidatedOptions(raw json.RawMessage) Option {
	return func(c *config) { c.options = raw }
}

// Runner is a compiled script shared by all VUs of a run.
type Runner struct {
	code    *compiled
	cfg     config
	options json.RawMessage
	exports map[string]bool
	files   *fileCache
	shared  *sharedStore
	// summarySections are the summary's sections while handleSummary runs (textSummary).
	summarySections []metrics.Section
}

// Load transforms and compiles the script at path and runs its init code once to read
// its options and exports. Errors are *ScriptError.
func Load(path string, opts ...Option) (*Runner, error) {
	code, err := compile(path)
	if err != nil {
		return nil, err
	}
	return loadCompiled(code, opts)
}

// LoadSource is Load for a script held in memory (omnik bench's); name places it in the
// working directory for messages, relative imports and open().
func LoadSource(name string, src []byte, opts ...Option) (*Runner, error) {
	code, err := compileSource(name, src)
	if err != nil {
		return nil, err
	}
	return loadCompiled(code, opts)
}

func loadCompiled(code *compiled, opts []Option) (*Runner, error) {
	r := &Runner{code: code, files: newFileCache(), shared: newSharedStore()}
	r.cfg = config{
		modules:    builtinModules(),
		extensions: map[string][]Module{},
		logger:     slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	WithRegistry(metrics.NewRegistry())(&r.cfg)
	r.Configure(opts...)
	vu, err := r.newVU(context.Background(), 0, true)
	if err != nil {
		return nil, err
	}
	if err := r.readExports(vu); err != nil {
		return nil, err
	}
	return r, nil
}

// Configure applies options after Load, once the run's options are consolidated.
func (r *Runner) Configure(opts ...Option) {
	for _, o := range opts {
		o(&r.cfg)
	}
	if r.cfg.collector == nil {
		r.cfg.collector = metrics.CollectorFunc(func([]metrics.Sample) {})
	}
}

func (r *Runner) readExports(vu *VU) error {
	r.exports = map[string]bool{}
	for _, k := range vu.exports.Keys() {
		if isFunction(vu.exports.Get(k)) {
			r.exports[k] = true
		}
	}
	r.options = json.RawMessage("{}")
	if opts := vu.exports.Get("options"); opts != nil && !isNullish(opts) {
		raw, err := json.Marshal(opts.Export())
		if err != nil {
			return &ScriptError{File: r.code.path, Msg: fmt.Sprintf("options are not JSON-serialisable: %v", err)}
		}
		r.options = raw
	}
	return nil
}

// Options returns the script's exported options as JSON ("{}" when none).
func (r *Runner) Options() json.RawMessage { return r.options }

// Path is the script's absolute path.
func (r *Runner) Path() string { return r.code.path }

// Digest is the sha256 (hex) of the bundled script: the script and every file it
// imports, as the runtimes run it.
func (r *Runner) Digest() string { return r.code.digest }

// HasExport reports whether the script exports a function with that name.
func (r *Runner) HasExport(name string) bool { return r.exports[name] }

// Exports lists the exported function names, sorted.
func (r *Runner) Exports() []string {
	out := make([]string, 0, len(r.exports))
	for k := range r.exports {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Registry is the run's metric registry.
func (r *Runner) Registry() *metrics.Registry { return r.cfg.registry }

// Builtin is the run's built-in metrics.
func (r *Runner) Builtin() *metrics.Builtin { return r.cfg.builtin }

// fileCache reads each opened file once per run and shares the bytes.
type fileCache struct {
	mu    sync.Mutex
	files map[string][]byte
}

func newFileCache() *fileCache { return &fileCache{files: map[string][]byte{}} }

func (c *fileCache) read(path string) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if b, ok := c.files[path]; ok {
		return b, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c.files[path] = b
	return b, nil
}
