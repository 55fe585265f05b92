package omni

import (
	"context"
	"sync"
	"time"

	"github.com/dop251/goja"
	"github.com/omnik-dev/omnik/js"
	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// Module is the omni module of one run: its default client, the clients scripts make,
// the metrics it records and the request log behind the summary blocks.
type Module struct {
	metrics *Metrics
	log     *requestLog
	records func(any)
	warn    func(string)

	datasets datasets

	mu      sync.Mutex
	cfg     Config
	def     *target
	clients []*target
}

// Option configures a Module.
type Option func(*Module)

// WithWarn sends the module's warnings (a failed model lookup) to f.
func WithWarn(f func(string)) Option { return func(m *Module) { m.warn = f } }

// WithRecords sends every request record to f (for --out json), from the reader goroutine.
func WithRecords(f func(any)) Option { return func(m *Module) { m.records = f } }

// New makes the module of one run and registers its metrics in reg.
func New(reg *metrics.Registry, opts ...Option) *Module {
	m := &Module{metrics: RegisterMetrics(reg), log: newRequestLog(SectionOptions{}), records: func(any) {},
		datasets: datasets{bySpec: map[string]*loadedDataset{}}, warn: func(string) {}}
	for _, o := range opts {
		o(m)
	}
	return m
}

// Configure sets the default client's configuration (options.omni with overrides).
func (m *Module) Configure(cfg Config) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cfg = cfg.withDefaults()
	m.def = nil
}

func (m *Module) defaultClient() *target {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.def == nil {
		m.def = newTarget(m.cfg)
		m.def.warn = m.warn
		m.clients = append(m.clients, m.def)
	}
	return m.def
}

// Section is the Serving/Stage Benchmark Result block for the summary, shaped by the
// options given to New (WithSection).
func (m *Module) Section() metrics.Section { return &section{log: m.log} }

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
		api := m.api(vu, nil)
		named := map[string]any{}
		for _, k := range api.Keys() {
			named[k] = api.Get(k)
		}
		return &js.Exports{Named: named, Default: api}, nil
	}
}

// api builds the call surface for one client; c nil is the default client, resolved at
// call time so it sees the consolidated configuration.
func (m *Module) api(vu *js.VU, c *target) *goja.Object {
	rt := vu.Runtime()
	get := func() *target {
		if c != nil {
			return c
		}
		return m.defaultClient()
	}
	o := rt.NewObject()
	_ = o.Set("chat", m.callFn(vu, get, chatEndpoint))
	images := rt.NewObject()
	_ = images.Set("generate", m.callFn(vu, get, imagesEndpoint))
	_ = images.Set("edit", m.callFn(vu, get, editEndpoint))
	_ = o.Set("images", images)
	audio := rt.NewObject()
	_ = audio.Set("speech", m.callFn(vu, get, speechEndpoint))
	_ = audio.Set("stream", m.streamFn(vu, get))
	_ = o.Set("audio", audio)
	_ = o.Set("client", func(cfg map[string]any) *goja.Object {
		vu.RequireInitContext("omni.client()")
		nc := m.newScriptClient(cfg)
		return m.api(vu, nc)
	})
	return o
}

// newScriptClient makes omni.client({...}): the default configuration with the given
// fields over it; its samples carry a `target` tag.
func (m *Module) newScriptClient(raw map[string]any) *target {
	m.mu.Lock()
	cfg := m.cfg
	m.mu.Unlock()
	if v, ok := raw["baseURL"].(string); ok {
		cfg.BaseURL = v
		cfg.Target = v
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
	c := newTarget(cfg)
	c.warn = m.warn
	m.mu.Lock()
	m.clients = append(m.clients, c)
	m.mu.Unlock()
	return c
}

// callFn wraps one HTTP endpoint as an async JS function (body, params) → Promise<result>.
func (m *Module) callFn(vu *js.VU, get func() *target, ep endpoint) func(goja.FunctionCall) goja.Value {
	return func(fc goja.FunctionCall) goja.Value {
		vu.RequireVUContext(ep.name)
		cl, p := m.prepare(vu, ep.name, fc.Argument(0), fc.Argument(1))
		c := get()
		return m.start(vu, c, p, func(ctx context.Context) *record.Record { return c.run(ctx, ep, cl) })
	}
}

// start runs one call on its own goroutine and returns the promise of its result. On the
// way its record becomes samples, a row of the summary and a line of --out json.
func (m *Module) start(vu *js.VU, c *target, p params, run func(context.Context) *record.Record) goja.Value {
	tags := vu.Tags().Merge(p.tags)
	if c.cfg.Target != "" {
		tags = tags.With("target", c.cfg.Target)
	}
	scenario, scenarioStart := "", time.Time{}
	if it := vu.Iteration(); it != nil && it.Scenario != nil {
		scenario, scenarioStart = it.Scenario.Name, it.Scenario.StartTime
	}
	meta := vu.Metadata()
	promise := vu.Promise(func(ctx context.Context) js.Settle {
		rec := run(ctx)
		rec.Tags = tags.Map()
		// Everything measured is reported here, on the reader's side: a call cut off by
		// the end of its iteration never gets its loop callback, but it still counts.
		if !p.discard {
			vu.Collect(m.metrics.samples(rec, tags, meta))
			q := reportRequest(rec, m.log.origin)
			if m.log.opts.Detailed {
				q.GeneratedText = rec.Text
			}
			m.log.add(scenario, q)
			if !scenarioStart.IsZero() {
				m.log.started(scenario, scenarioStart.Sub(m.log.origin))
			}
			m.records(requestRecord(rec))
		}
		return func() (any, error) {
			return resultObject(vu.Runtime(), rec, p), nil
		}
	})
	return vu.Runtime().ToValue(promise)
}

// params are omnik's own parameters, the second argument of every call.
type params struct {
	tags       *metrics.TagSet
	keepAudio  bool
	keepImages bool
	// discard keeps the call out of every metric, record and summary (warmup requests).
	discard bool
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
