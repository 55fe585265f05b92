package js

import (
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/dop251/goja"
)

func (vu *VU) installGlobals() error {
	rt := vu.rt
	for name, v := range map[string]any{"__VU": vu.id, "__ITER": 0, "__ENV": vu.envFor(nil)} {
		if err := rt.Set(name, v); err != nil {
			return err
		}
	}
	// The helpers live on the global object's prototype and are built on first use: a
	// lookup of a global the object lacks goes on to its prototype.
	l, helpers := vu.newLazyObject(10)
	l.add("console", Lazy(vu.console))
	l.add("open", vu.open)
	l.add("setTimeout", func(c goja.FunctionCall) goja.Value { return vu.setTimer(c, false) })
	l.add("setInterval", func(c goja.FunctionCall) goja.Value { return vu.setTimer(c, true) })
	l.add("clearTimeout", vu.clearTimer)
	l.add("clearInterval", vu.clearTimer)
	l.add("TextEncoder", vu.textEncoder)
	l.add("TextDecoder", vu.textDecoder)
	return rt.GlobalObject().SetPrototype(helpers)
}

// envFor returns __ENV for a scenario: the run's env with the scenario's env over it.
func (vu *VU) envFor(s *Scenario) *goja.Object {
	if o, ok := vu.envByScen[s]; ok {
		return o
	}
	e := &envObject{rt: vu.rt, run: vu.runner.cfg.env}
	if s != nil {
		e.scenario = s.Env
	}
	o := vu.rt.NewDynamicObject(e)
	vu.envByScen[s] = o
	return o
}

// envObject is __ENV. It reads the run's and the scenario's maps, shared by every VU,
// until the script changes it; then it holds its own copy.
type envObject struct {
	rt            *goja.Runtime
	run, scenario map[string]string
	own           map[string]goja.Value // nil until the first Set or Delete
}

func (e *envObject) lookup(key string) (string, bool) {
	if v, ok := e.scenario[key]; ok {
		return v, true
	}
	v, ok := e.run[key]
	return v, ok
}

// copy makes the object's own map at the first change.
func (e *envObject) copy() {
	if e.own != nil {
		return
	}
	e.own = make(map[string]goja.Value, len(e.run)+len(e.scenario))
	for _, m := range []map[string]string{e.run, e.scenario} {
		for k, v := range m {
			e.own[k] = e.rt.ToValue(v)
		}
	}
}

// Get implements goja.DynamicObject.
func (e *envObject) Get(key string) goja.Value {
	if e.own != nil {
		return e.own[key]
	}
	if v, ok := e.lookup(key); ok {
		return e.rt.ToValue(v)
	}
	return nil
}

// Set implements goja.DynamicObject.
func (e *envObject) Set(key string, val goja.Value) bool {
	e.copy()
	e.own[key] = val
	return true
}

// Has implements goja.DynamicObject.
func (e *envObject) Has(key string) bool {
	if e.own != nil {
		_, ok := e.own[key]
		return ok
	}
	_, ok := e.lookup(key)
	return ok
}

// Delete implements goja.DynamicObject.
func (e *envObject) Delete(key string) bool {
	e.copy()
	delete(e.own, key)
	return true
}

// Keys implements goja.DynamicObject, sorted.
func (e *envObject) Keys() []string {
	var keys []string
	if e.own != nil {
		keys = slices.Collect(maps.Keys(e.own))
	} else {
		keys = slices.Collect(maps.Keys(e.run))
		for k := range e.scenario {
			if _, dup := e.run[k]; !dup {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	return keys
}

func (vu *VU) console() any {
	l, o := vu.newLazyObject(5)
	for _, lv := range []struct {
		name  string
		level slog.Level
	}{{"log", slog.LevelInfo}, {"info", slog.LevelInfo}, {"warn", slog.LevelWarn}, {"error", slog.LevelError}, {"debug", slog.LevelDebug}} {
		l.add(lv.name, func(c goja.FunctionCall) goja.Value {
			parts := make([]string, len(c.Arguments))
			for i, a := range c.Arguments {
				parts[i] = vu.format(a)
			}
			vu.runner.cfg.logger.Log(vu.ctx, lv.level, strings.Join(parts, " "), "source", "console", "vu", vu.id)
			return goja.Undefined()
		})
	}
	return o
}

// format prints objects as JSON, like browsers' console do for plain data.
func (vu *VU) format(v goja.Value) string {
	if o, ok := v.(*goja.Object); ok && !isFunction(v) {
		if o.ClassName() == "Error" {
			return o.String()
		}
		if b, err := o.MarshalJSON(); err == nil {
			return string(b)
		}
	}
	return v.String()
}

// open reads a file relative to the script, once per run; "b" returns an ArrayBuffer
// over the shared bytes (read-only by convention: it is never copied per VU).
func (vu *VU) open(path string, mode goja.Value) goja.Value {
	vu.RequireInitContext("open()")
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(vu.runner.code.path), path)
	}
	b, err := vu.runner.files.read(path)
	if err != nil {
		panic(vu.rt.NewGoError(fmt.Errorf("open(%q): %w", path, err)))
	}
	if !isNullish(mode) && mode.String() == "b" {
		return vu.rt.ToValue(vu.rt.NewArrayBuffer(b))
	}
	return vu.rt.ToValue(string(b))
}

type jsTimer struct {
	lt       *loopTimer
	interval bool
	cleared  bool
}

func (vu *VU) setTimer(c goja.FunctionCall, interval bool) goja.Value {
	fn, ok := goja.AssertFunction(c.Argument(0))
	if !ok {
		panic(vu.rt.NewTypeError("setTimeout/setInterval needs a function"))
	}
	d := time.Duration(c.Argument(1).ToFloat() * float64(time.Millisecond))
	if d < 0 {
		d = 0
	}
	var args []goja.Value
	if len(c.Arguments) > 2 {
		args = c.Arguments[2:]
	}
	vu.nextTimer++
	id := vu.nextTimer
	t := &jsTimer{interval: interval}
	vu.timers[id] = t
	// The callback runs in the group that armed the timer, not wherever the loop is then.
	g := vu.currentGroup()
	var arm func()
	arm = func() {
		t.lt = vu.loop.after(d, vu.inGroup(g, func() error {
			if t.cleared {
				return nil
			}
			if !t.interval {
				delete(vu.timers, id)
			}
			_, err := fn(goja.Undefined(), args...)
			if err == nil && t.interval && !t.cleared {
				arm()
			}
			return err
		}))
	}
	arm()
	return vu.rt.ToValue(id)
}

func (vu *VU) clearTimer(id int64) {
	if t, ok := vu.timers[id]; ok {
		t.cleared = true
		t.lt.cancel()
		delete(vu.timers, id)
	}
}

func (vu *VU) textEncoder(call goja.ConstructorCall) *goja.Object {
	_ = call.This.Set("encoding", "utf-8")
	_ = call.This.Set("encode", func(s string) goja.Value { return vu.uint8Array([]byte(s)) })
	return nil
}

func (vu *VU) textDecoder(call goja.ConstructorCall) *goja.Object {
	if l := call.Argument(0); !isNullish(l) {
		if enc := strings.ToLower(l.String()); enc != "utf-8" && enc != "utf8" {
			panic(vu.rt.NewTypeError("TextDecoder: unsupported encoding %q (only utf-8)", enc))
		}
	}
	_ = call.This.Set("encoding", "utf-8")
	_ = call.This.Set("decode", func(v goja.Value) string { return string(vu.Bytes(v)) })
	return nil
}

func (vu *VU) uint8Array(b []byte) goja.Value {
	ctor := vu.rt.Get("Uint8Array")
	o, err := vu.rt.New(ctor, vu.rt.ToValue(vu.rt.NewArrayBuffer(b)))
	if err != nil {
		panic(err)
	}
	return o
}

// Bytes returns the bytes behind an ArrayBuffer, a typed array, a DataView or a string,
// without copying where the runtime allows it.
func (vu *VU) Bytes(v goja.Value) []byte {
	if isNullish(v) {
		return nil
	}
	switch x := v.Export().(type) {
	case goja.ArrayBuffer:
		return x.Bytes()
	case []byte:
		return x
	case string:
		return []byte(x)
	}
	if o, ok := v.(*goja.Object); ok {
		// A plain object may have no buffer, or one with a made-up offset and length.
		if b := o.Get("buffer"); b != nil {
			if buf, ok := b.Export().(goja.ArrayBuffer); ok {
				data, off, n := buf.Bytes(), intOf(o.Get("byteOffset")), intOf(o.Get("byteLength"))
				if off >= 0 && n >= 0 && off <= int64(len(data)) && n <= int64(len(data))-off {
					return data[off : off+n]
				}
			}
		}
	}
	panic(vu.rt.NewTypeError("expected an ArrayBuffer, a typed array or a string"))
}

// intOf is v as an integer, -1 when it is absent.
func intOf(v goja.Value) int64 {
	if v == nil {
		return -1
	}
	return v.ToInteger()
}
