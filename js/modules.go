package js

import (
	"maps"
	"slices"

	"github.com/dop251/goja"
)

// Exports is what a module offers to `import`: named exports and a default export (the
// named ones as one object when Default is nil).
type Exports struct {
	Named   map[string]any
	Default any
}

func builtinModules() map[string]Module {
	return map[string]Module{
		"omnik":           omnikModule,
		"omnik/metrics":   metricsModule,
		"omnik/execution": executionModule,
		"omnik/data":      dataModule,
		"omnik/summary":   summaryModule,
	}
}

// require resolves the built-in imports esbuild left in the bundle; each runtime builds
// its own instance of a module once.
func (vu *VU) require(name string) *goja.Object {
	if m, ok := vu.modules[name]; ok {
		return m
	}
	mod, ok := vu.runner.cfg.modules[name]
	extensions := vu.runner.cfg.extensions[name]
	if !ok && len(extensions) > 0 {
		mod, ok = func(*VU) (*Exports, error) { return &Exports{Named: map[string]any{}}, nil }, true
	}
	if !ok {
		panic(vu.rt.NewTypeError("unknown module %q: built-in modules are %s; your own files are imported with a relative path like './lib.js'", name, builtinNames))
	}
	ex, err := mod(vu)
	if err != nil {
		panic(vu.rt.NewGoError(err))
	}
	for _, ext := range extensions {
		more, err := ext(vu)
		if err != nil {
			panic(vu.rt.NewGoError(err))
		}
		for k, v := range more.Named {
			ex.Named[k] = v
		}
	}
	// The named exports are own properties (export * and Object.keys(ns) copy own names
	// only), each built on its first read; default is the same kind of object without
	// the interop marker.
	obj, named := vu.lazyExports(ex.Named), vu.lazyExports(ex.Named)
	if ex.Default != nil {
		_ = obj.Set("default", vu.rt.ToValue(ex.Default))
	} else {
		_ = obj.Set("default", named)
	}
	// Marks the object as an ES module for esbuild's interop helpers.
	_ = obj.Set("__esModule", true)
	vu.modules[name] = obj
	return obj
}

// lazyExports is an object of a module's named exports, in name order, each built on
// its first read.
func (vu *VU) lazyExports(named map[string]any) *goja.Object {
	l, o := vu.newLazyObject(len(named) + 2)
	for _, k := range slices.Sorted(maps.Keys(named)) {
		l.add(k, named[k])
	}
	return o
}
