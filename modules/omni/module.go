package omni

import (
	"context"
	"crypto/tls"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"
	"github.com/omnik-dev/omnik/js"
	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/modules/httpdebug"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// Module is the omni module of one run: its default client and the clients scripts make.
// Each finished call is one record published on the run's stream: records are the only
// thing the module emits; metrics, summary blocks and files are views of them.
type Module struct {
	stream *record.Stream
	origin time.Time
	warn   func(string)
	// calls counts the calls whose record is not yet published, for Drain.
	calls sync.WaitGroup
	// wrap, when set, wraps every client's HTTP transport (--http-debug).
	wrap func(http.RoundTripper) http.RoundTripper

	datasets datasets

	mu  sync.Mutex
	cfg Config
	// tls is cfg's TLS settings, files read: the default client's, and every client's
	// that does not set its own.
	tls     *tls.Config
	def     *target
	clients []*target
	// named is set once a script made a client: the default client's requests are then
	// tagged target:default, so thresholds and the A/B block can name that side.
	named atomic.Bool
	// turns rotates, per VU, which copy of a mirrored call starts first: a count shared
	// by the VUs would let one VU's calls start on one side far more often.
	turns sync.Map // VU id → *atomic.Uint64
}

// Option configures a Module.
type Option func(*Module)

// WithWarn sends the module's warnings (a failed model lookup) to f.
func WithWarn(f func(string)) Option { return func(m *Module) { m.warn = f } }

// WithStream publishes every record on s; origin is the run's time zero, from which
// records take their Offset.
func WithStream(s *record.Stream, origin time.Time) Option {
	return func(m *Module) { m.stream, m.origin = s, origin }
}

// WithTransport wraps the HTTP transport of every client the module makes (--http-debug
// prints their exchanges); websocket sessions do not go through it.
func WithTransport(wrap func(http.RoundTripper) http.RoundTripper) Option {
	return func(m *Module) { m.wrap = wrap }
}

// New makes the module of one run. Without WithStream its records go nowhere.
func New(opts ...Option) *Module {
	m := &Module{stream: record.NewStream(), origin: time.Now(),
		datasets: datasets{bySpec: map[string]*loadedDataset{}}, warn: func(string) {}}
	for _, o := range opts {
		o(m)
	}
	return m
}

// Drain waits until every call that has started has published its record, or ctx is
// done: a call cut off by the end of the run still counts, once its reader returns.
func (m *Module) Drain(ctx context.Context) {
	done := make(chan struct{})
	go func() { m.calls.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// Configure sets the default client's configuration (options.omni with overrides). It
// fails, naming the file, when a TLS file cannot be used.
func (m *Module) Configure(cfg Config) error {
	tc, err := cfg.tlsConfig()
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cfg, m.tls = cfg.withDefaults(), tc
	m.def = nil
	return nil
}

// Config is the default client's configuration.
func (m *Module) Config() Config {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cfg
}

// TLSConfig is the default client's TLS configuration (nil for Go's defaults), for
// omnik/http, which follows the run's TLS settings.
func (m *Module) TLSConfig() *tls.Config {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.tls
}

func (m *Module) defaultClient() *target {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.def == nil {
		m.def = m.newTarget(m.cfg, m.tls)
		m.clients = append(m.clients, m.def)
	}
	return m.def
}

// newTarget makes a client with the module's warnings and transport wrapper.
func (m *Module) newTarget(cfg Config, tc *tls.Config) *target {
	c := newTarget(cfg, tc)
	c.warn = m.warn
	if m.wrap != nil {
		c.http.Transport = m.wrap(c.http.Transport)
	}
	return c
}

// Close releases idle connections.
func (m *Module) Close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range m.clients {
		c.close()
	}
}

// JS is the module as scripts import it: `import omni from 'omni'`.
func (m *Module) JS() js.Module {
	return func(vu *js.VU) (*js.Exports, error) {
		api := m.api(vu, nil, &mirrors{})
		named := map[string]any{}
		for _, k := range apiNames {
			named[k] = js.Lazy(func() any { return api.Get(k) })
		}
		return &js.Exports{Named: named, Default: api}, nil
	}
}

// mirrors are the clients of one VU that get a copy of every call of its default client
// (omni.client({mirror: true})).
type mirrors struct{ targets []*target }

// apiNames are the properties of a client's object; traceRequest is the module's only.
var apiNames = []string{"chat", "images", "audio", "realtime", "videos", "client", "traceRequest"}

// api builds the call surface for one client; c nil is the default client, resolved at
// call time so it sees the consolidated configuration. ms are the VU's mirrors. Each
// function is made on its first read: a script uses a few of them.
func (m *Module) api(vu *js.VU, c *target, ms *mirrors) *goja.Object {
	rt := vu.Runtime()
	get := func() (*target, []*target) {
		if c != nil {
			return c, nil
		}
		return m.defaultClient(), ms.targets
	}
	names := apiNames
	if c != nil {
		names = names[:len(names)-1]
	}
	return vu.NewLazyObject(names, func(name string) any {
		switch name {
		case "chat":
			return m.callFn(vu, get, chatEndpoint)
		case "images":
			return vu.NewLazyObject([]string{"generate", "edit"}, func(name string) any {
				if name == "edit" {
					return m.callFn(vu, get, editEndpoint)
				}
				return m.callFn(vu, get, imagesEndpoint)
			})
		case "audio":
			return vu.NewLazyObject([]string{"speech", "stream"}, func(name string) any {
				if name == "stream" {
					return m.streamFn(vu, get)
				}
				return m.callFn(vu, get, speechEndpoint)
			})
		case "realtime":
			return m.realtimeFn(vu, get)
		case "videos":
			return vu.NewLazyObject([]string{"generate"}, func(string) any { return m.videoFn(vu, get) })
		case "client":
			return func(cfg map[string]any) *goja.Object {
				vu.RequireInitContext("omni.client()")
				nc, mirror, err := m.newScriptClient(cfg)
				if err != nil {
					panic(rt.NewGoError(fmt.Errorf("omni.client(): %w", err)))
				}
				if mirror {
					ms.targets = append(ms.targets, nc)
				}
				return m.api(vu, nc, ms)
			}
		case "traceRequest":
			return traceRequest(vu)
		}
		return nil
	})
}

// newScriptClient makes omni.client({...}): the default configuration with the given
// fields over it; its samples carry a `target` tag. mirror is its `mirror: true`.
func (m *Module) newScriptClient(raw map[string]any) (c *target, mirror bool, err error) {
	m.mu.Lock()
	cfg, tc := m.cfg, m.tls
	m.mu.Unlock()
	if v, ok := raw["baseURL"].(string); ok {
		// The tag goes into every sample and record: never the URL's credentials.
		cfg.BaseURL, cfg.Target = v, httpdebug.RedactText(v)
	}
	if v, ok := raw["model"].(string); ok {
		cfg.Model = v
	}
	if v, ok := raw["apiKey"].(string); ok {
		cfg.APIKey = v
	}
	if v, ok := raw["target"].(string); ok {
		cfg.Target = v
	}
	if h, ok := raw["headers"].(map[string]any); ok {
		cfg.Headers = map[string]string{}
		for k, v := range h {
			if s, ok := v.(string); ok {
				cfg.Headers[k] = s
			}
		}
	}
	mirror, _ = raw["mirror"].(bool)
	if mirror && (cfg.Target == "" || cfg.Target == record.DefaultTarget) {
		// Its requests would be told from the default client's by nothing.
		return nil, false, fmt.Errorf("mirror: true needs a target name other than %q (target, or a baseURL, names it)", record.DefaultTarget)
	}
	if changed, err := clientTLS(raw, &cfg); err != nil {
		return nil, false, err
	} else if changed {
		if tc, err = cfg.tlsConfig(); err != nil {
			return nil, false, err
		}
	}
	c = m.newTarget(cfg, tc)
	m.mu.Lock()
	m.clients = append(m.clients, c)
	m.mu.Unlock()
	m.named.Store(true)
	return c, mirror, nil
}

// targetName is the `target` tag of c's requests: its own name, else "default" for the
// default client of a run that made other clients, else none.
func (m *Module) targetName(c *target) string {
	if c.cfg.Target == "" && m.named.Load() {
		return record.DefaultTarget
	}
	return c.cfg.Target
}

// callFn wraps one HTTP endpoint as an async JS function (body, params) → Promise<result>.
func (m *Module) callFn(vu *js.VU, get func() (*target, []*target), ep endpoint) func(goja.FunctionCall) goja.Value {
	return func(fc goja.FunctionCall) goja.Value {
		vu.RequireVUContext(ep.name)
		cl, p := m.prepare(vu, ep.name, fc.Argument(0), fc.Argument(1))
		c, mirrors := get()
		return m.start(vu, c, mirrors, p, cl, func(ctx context.Context, c *target, cl call) []*record.Record {
			return []*record.Record{c.run(ctx, ep, cl)}
		}, oneResult)
	}
}

// runFn runs a call through a target: one record per request, or per realtime turn.
type runFn func(context.Context, *target, call) []*record.Record

// resultFn is what a call's records resolve to in JavaScript.
type resultFn func(rt *goja.Runtime, recs []*record.Record, p params) map[string]any

func oneResult(rt *goja.Runtime, recs []*record.Record, p params) map[string]any {
	return resultObject(rt, recs[0], p)
}

// start runs one call on its own goroutine, and a copy of it on each mirror's at the
// same time, and returns the promise of its result, which settles once every copy ended
// (so a mirror gets the load the script gives c, not more). The records are published on
// the readers' side: a call cut off by the end of its iteration never gets its loop
// callback, but it still counts.
func (m *Module) start(vu *js.VU, c *target, mirrors []*target, p params, cl call, run runFn, result resultFn) goja.Value {
	tags := vu.Tags().Merge(p.tags)
	meta, scenario := vu.Metadata(), ""
	if it := vu.Iteration(); it != nil && it.Scenario != nil {
		scenario = it.Scenario.Name
	}
	sides := append([]*target{c}, mirrors...)
	pair := ""
	if len(mirrors) > 0 {
		pair = strconv.FormatUint(rand.Uint64(), 36) // unique across the files omnik merge joins
	}
	m.calls.Add(1)
	promise := vu.Promise(func(ctx context.Context) js.Settle {
		defer m.calls.Done()
		recs := make([][]*record.Record, len(sides))
		if len(mirrors) == 0 {
			recs[0] = run(ctx, c, cl)
		} else {
			calls := []call{cl}
			for range mirrors {
				// Copied before c's run completes the body with its defaults (and its model).
				calls = append(calls, cl.mirrored())
			}
			// The copies start in an order that turns call by call, so no side is
			// always the first on the wire (and first served by a shared server).
			turn, _ := m.turns.LoadOrStore(vu.ID(), new(atomic.Uint64))
			first := int(turn.(*atomic.Uint64).Add(1) % uint64(len(sides)))
			var wg sync.WaitGroup
			for j := range sides {
				i := (first + j) % len(sides)
				wg.Go(func() { recs[i] = run(ctx, sides[i], calls[i]) })
			}
			wg.Wait()
		}
		for i, side := range recs {
			t := tags
			if name := m.targetName(sides[i]); name != "" {
				t = t.With("target", name)
			}
			for _, rec := range side {
				rec.Usage.ResolvePrompt(p.promptTokens)
				rec.Scenario, rec.Tags, rec.Metadata, rec.Offset = scenario, t.Map(), pairMetadata(meta, pair, len(sides)), rec.Start.Sub(m.origin)
				if !p.discard {
					m.stream.Publish(rec)
				}
			}
		}
		return func() (any, error) {
			res := result(vu.Runtime(), recs[0], p)
			if len(mirrors) > 0 {
				out := make([]any, len(mirrors))
				for i, rec := range recs[1:] {
					o := result(vu.Runtime(), rec, params{})
					o["target"] = m.targetName(mirrors[i])
					out[i] = o
				}
				res["mirrors"] = out
			}
			return res, nil
		}
	})
	return vu.Runtime().ToValue(promise)
}

// pairMetadata is a record's metadata: a copy of the iteration's (the script may change
// it while outputs write the record) with, for a mirrored call, its pair id and size.
func pairMetadata(meta map[string]string, pair string, size int) map[string]string {
	out := maps.Clone(meta)
	if pair != "" {
		if out == nil {
			out = map[string]string{}
		}
		out[record.MetaPair], out[record.MetaPairSize] = pair, strconv.Itoa(size)
	}
	return out
}

// params are omnik's own parameters, the second argument of every call.
type params struct {
	tags       *metrics.TagSet
	keepAudio  bool
	keepImages bool
	// discard keeps the call out of every metric, record and summary (warmup requests).
	discard bool
	// promptTokens is the script's count of the prompt, for a server that reports none.
	promptTokens int
}

func (m *Module) prepare(vu *js.VU, name string, bodyV, paramsV goja.Value) (call, params) {
	rt := vu.Runtime()
	body, ok := exportBody(bodyV).(map[string]any)
	if !ok {
		panic(rt.NewTypeError(name + ": the first argument must be an object (the request body or session config)"))
	}
	cl := call{body: body, sampleRate: 24000}
	if it := vu.Iteration(); it != nil {
		cl.intendedStart = it.IntendedStart
	}
	var p params
	po, isObj := paramsV.(*goja.Object)
	if !isObj {
		return cl, p
	}
	if t, ok := po.Get("tags").(*goja.Object); ok {
		m := map[string]string{}
		for _, k := range t.Keys() {
			m[k] = t.Get(k).String()
		}
		p.tags = metrics.NewTagSet(m)
	}
	if v := po.Get("timeout"); v != nil && !goja.IsUndefined(v) {
		cl.timeout = time.Duration(v.ToFloat() * float64(time.Millisecond))
	}
	if v := po.Get("sampleRate"); v != nil && !goja.IsUndefined(v) {
		cl.sampleRate = int(v.ToInteger())
	}
	if h, ok := po.Get("headers").(*goja.Object); ok {
		cl.headers = map[string]string{}
		for _, k := range h.Keys() {
			cl.headers[k] = h.Get(k).String()
		}
	}
	if v := po.Get("discard"); v != nil {
		p.discard = v.ToBoolean()
	}
	if v := po.Get("promptTokens"); v != nil && !goja.IsUndefined(v) {
		p.promptTokens = int(v.ToInteger())
	}
	if v := po.Get("keepImages"); v != nil {
		p.keepImages = v.ToBoolean()
		cl.keepImages = p.keepImages
	}
	if v := po.Get("keepAudio"); v != nil {
		p.keepAudio = v.ToBoolean()
		cl.keepAudio = p.keepAudio
	}
	if fn, ok := goja.AssertFunction(po.Get("onEvent")); ok {
		// The reader goroutine stamps the event; JS sees it later on the loop, so a slow
		// callback never delays a timestamp.
		cl.onEvent = func(at time.Time, data []byte) {
			text := string(data)
			enqueue := vu.Register()
			enqueue(func() error {
				_, err := fn(goja.Undefined(), rt.ToValue(map[string]any{
					"time": float64(at.UnixNano()) / 1e6, "data": text,
				}))
				return err
			})
		}
	}
	return cl, p
}

// Model is the default client's model: the configured one, or the first that
// GET /v1/models listed.
func (m *Module) Model() string { return m.defaultClient().model(context.Background()) }
