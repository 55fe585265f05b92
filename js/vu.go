package js

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/dop251/goja"
	"github.com/omnik-dev/omnik/metrics"
)

// VU is one virtual user: a goja runtime, its event loop and its per-iteration state.
// Only the goroutine running the VU may touch it, except through Promise and Register.
type VU struct {
	runner  *Runner
	rt      *goja.Runtime
	loop    *eventLoop
	id      uint64
	exports *goja.Object
	modules map[string]*goja.Object

	ctx            context.Context
	state          *vuState // nil while init code runs
	readingOptions bool

	timers      map[int64]*jsTimer
	nextTimer   int64
	rejections  map[*goja.Promise]struct{}
	iterInVU    uint64
	iterByScen  map[*Scenario]uint64
	envByScen   map[*Scenario]*goja.Object
	setupRaw    []byte
	setupValue  goja.Value
	userTags    map[string]string // execution.vu.tags
	tagsChanged bool
}

// vuState is what only VU code has: the current iteration, tags and sample buffer.
type vuState struct {
	it      *Iteration
	tags    *metrics.TagSet
	group   string
	meta    map[string]string
	samples []metrics.Sample
	// traceEntry is the iteration's trace entry as JS, built on its first read so every
	// read sees the same object.
	traceEntry goja.Value
}

// newVU makes a VU and runs its init code; readingOptions marks the runtime Load uses
// to read the script's options, before the run is configured.
func (r *Runner) newVU(ctx context.Context, id uint64, readingOptions bool) (*VU, error) {
	vu := &VU{
		readingOptions: readingOptions,
		runner:         r,
		rt:             goja.New(),
		loop:           newEventLoop(),
		id:             id,
		modules:        map[string]*goja.Object{},
		ctx:            ctx,
		timers:         map[int64]*jsTimer{},
		rejections:     map[*goja.Promise]struct{}{},
		iterByScen:     map[*Scenario]uint64{},
		envByScen:      map[*Scenario]*goja.Object{},
		userTags:       map[string]string{},
	}
	vu.rt.SetFieldNameMapper(goja.TagFieldNameMapper("js", true))
	vu.rt.SetPromiseRejectionTracker(vu.trackRejection)
	vu.rt.SetAsyncContextTracker(&groupTracker{vu: vu})
	if err := vu.installGlobals(); err != nil {
		return nil, err
	}
	if err := vu.runInit(); err != nil {
		return nil, err
	}
	return vu, nil
}

// NewVU initialises VU number id (1-based): it runs the script's init code in a new
// runtime.
func (r *Runner) NewVU(ctx context.Context, id uint64) (*VU, error) { return r.newVU(ctx, id, false) }

// ReadingOptions reports whether this runtime only reads the script's options: its init
// code runs before the run's options (and modules' configuration) are known, and no
// iteration ever runs in it. Modules skip work that needs the configuration there.
func (vu *VU) ReadingOptions() bool { return vu.readingOptions }

func (vu *VU) runInit() error {
	fnVal, err := vu.rt.RunProgram(vu.runner.code.program)
	if err != nil {
		return vu.initError(err)
	}
	fn, _ := goja.AssertFunction(fnVal)
	module := vu.rt.NewObject()
	exports := vu.rt.NewObject()
	_ = module.Set("exports", exports)
	if _, err := fn(goja.Undefined(), module, exports, vu.rt.ToValue(vu.require)); err != nil {
		return vu.initError(err)
	}
	vu.exports = module.Get("exports").ToObject(vu.rt)
	return nil
}

func (vu *VU) initError(err error) error {
	return &ScriptError{File: vu.runner.code.path, Msg: "error in init code: " + Exception(err)}
}

// Runtime is the VU's goja runtime; use it only on the VU's goroutine.
func (vu *VU) Runtime() *goja.Runtime { return vu.rt }

// ID is the VU's number within this instance (0 for setup, teardown and option reading).
func (vu *VU) ID() uint64 { return vu.id }

// Context is the current iteration's context; it ends when the iteration is interrupted.
func (vu *VU) Context() context.Context { return vu.ctx }

// InInit reports whether init code is running.
func (vu *VU) InInit() bool { return vu.state == nil }

// Iteration is the current iteration (nil in init, setup and teardown).
func (vu *VU) Iteration() *Iteration {
	if vu.state == nil {
		return nil
	}
	return vu.state.it
}

// Registry is the run's metric registry.
func (vu *VU) Registry() *metrics.Registry { return vu.runner.cfg.registry }

// Tags is the tag set samples of the current call should carry: run, scenario, VU and
// group tags.
func (vu *VU) Tags() *metrics.TagSet {
	if vu.state == nil {
		return nil
	}
	if vu.tagsChanged {
		vu.state.tags = vu.computeTags()
		vu.tagsChanged = false
	}
	return vu.state.tags
}

// Metadata is the non-indexed metadata (vu, iter) of the current iteration's samples.
func (vu *VU) Metadata() map[string]string {
	if vu.state == nil {
		return nil
	}
	return vu.state.meta
}

// Emit buffers samples; they are sent when the iteration ends or the buffer fills.
func (vu *VU) Emit(samples ...metrics.Sample) {
	if vu.state == nil {
		vu.runner.cfg.collector.Collect(samples)
		return
	}
	vu.state.samples = append(vu.state.samples, samples...)
	if len(vu.state.samples) >= 512 {
		vu.flush()
	}
}

func (vu *VU) flush() {
	if vu.state == nil || len(vu.state.samples) == 0 {
		return
	}
	vu.runner.cfg.collector.Collect(vu.state.samples)
	vu.state.samples = nil
}

// RequireVUContext throws a JS error when called from init code.
func (vu *VU) RequireVUContext(call string) {
	if vu.state == nil {
		panic(vu.rt.NewGoError(&ContextError{Call: call, Context: "VU (default function, setup, teardown)"}))
	}
}

// RequireInitContext throws a JS error when called outside init code.
func (vu *VU) RequireInitContext(call string) {
	if vu.state != nil {
		panic(vu.rt.NewGoError(&ContextError{Call: call, Context: "init (top-level)"}))
	}
}

func (vu *VU) computeTags() *metrics.TagSet {
	m := make(map[string]string, 8)
	for k, v := range vu.runner.cfg.tags {
		m[k] = v
	}
	if it := vu.state.it; it != nil && it.Scenario != nil {
		for k, v := range it.Scenario.Tags {
			m[k] = v
		}
		m["scenario"] = it.Scenario.Name
	}
	for k, v := range vu.userTags {
		m[k] = v
	}
	if vu.state.group != "" {
		m["group"] = vu.state.group
	}
	return metrics.NewTagSet(m)
}

// RunIteration runs the scenario function once; see engine.VU.
func (vu *VU) RunIteration(ctx context.Context, it *Iteration) error {
	name := "default"
	if it.Scenario != nil && it.Scenario.Exec != "" {
		name = it.Scenario.Exec
	}
	n := vu.iterByScen[it.Scenario]
	vu.iterByScen[it.Scenario] = n + 1
	vu.state = &vuState{it: it, meta: map[string]string{
		"vu": strconv.FormatUint(vu.id, 10), "iter": strconv.FormatUint(n, 10),
	}}
	vu.state.tags = vu.computeTags()
	vu.tagsChanged = false
	_ = vu.rt.Set("__ITER", n)
	_ = vu.rt.Set("__ENV", vu.envFor(it.Scenario))
	start := time.Now()
	_, err := vu.call(ctx, name, vu.setupData(it.SetupData))
	vu.iterInVU++
	if ctx.Err() == nil {
		b := vu.runner.cfg.builtin
		tags := vu.Tags()
		vu.state.samples = append(vu.state.samples,
			metrics.Sample{Metric: b.Iterations, Tags: tags, Time: time.Now(), Value: 1, Metadata: vu.state.meta},
			metrics.Sample{Metric: b.IterationDuration, Tags: tags, Time: time.Now(),
				Value: float64(time.Since(start)) / float64(time.Millisecond), Metadata: vu.state.meta})
	}
	vu.flush()
	return err
}

func (vu *VU) setupData(raw SetupData) goja.Value {
	if len(raw) == 0 {
		return goja.Undefined()
	}
	if vu.setupValue != nil && len(vu.setupRaw) == len(raw) && &vu.setupRaw[0] == &raw[0] {
		return vu.setupValue
	}
	v, err := vu.rt.RunString("(" + string(raw) + ")")
	if err != nil {
		return goja.Undefined()
	}
	vu.setupRaw, vu.setupValue = raw, v
	return v
}

// call runs an exported function through the event loop and waits for all the async
// work it starts. A returned promise is awaited; its rejection is the error.
func (vu *VU) call(ctx context.Context, name string, args ...goja.Value) (goja.Value, error) {
	fn, ok := goja.AssertFunction(vu.exports.Get(name))
	if !ok {
		return nil, fmt.Errorf("function %q is not exported by the script", name)
	}
	vu.ctx = ctx
	stop := context.AfterFunc(ctx, func() { vu.rt.Interrupt(ctx.Err()) })
	defer func() {
		stop()
		vu.rt.ClearInterrupt()
		clear(vu.rejections)
	}()
	var result goja.Value
	err := vu.loop.run(ctx, func() error {
		v, err := fn(goja.Undefined(), args...)
		result = v
		return err
	})
	if err == nil {
		err = vu.unhandledRejection()
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var ie *goja.InterruptedError
		if errors.As(err, &ie) {
			if ae, ok := ie.Value().(*AbortError); ok {
				return nil, ae
			}
		}
		return nil, err
	}
	if p, ok := result.Export().(*goja.Promise); ok {
		switch p.State() {
		case goja.PromiseStateRejected:
			return nil, promiseError(p.Result())
		case goja.PromiseStatePending:
			return nil, errors.New("the function's promise never settled")
		}
		return p.Result(), nil
	}
	return result, nil
}

func (vu *VU) trackRejection(p *goja.Promise, op goja.PromiseRejectionOperation) {
	if op == goja.PromiseRejectionReject {
		vu.rejections[p] = struct{}{}
	} else {
		delete(vu.rejections, p)
	}
}

// unhandledRejection fails the iteration with the first rejection nobody handled.
func (vu *VU) unhandledRejection() error {
	for p := range vu.rejections {
		return fmt.Errorf("unhandled promise rejection: %w", promiseError(p.Result()))
	}
	return nil
}

// promiseError keeps the JS stack of a rejected Error, or the value's text.
func promiseError(v goja.Value) error {
	if o, ok := v.(*goja.Object); ok {
		if st := o.Get("stack"); st != nil && !isNullish(st) {
			return errors.New(st.String())
		}
	}
	if v == nil {
		return errors.New("undefined")
	}
	return errors.New(v.String())
}

func isFunction(v goja.Value) bool {
	_, ok := goja.AssertFunction(v)
	return ok
}

func isNullish(v goja.Value) bool { return v == nil || goja.IsUndefined(v) || goja.IsNull(v) }
