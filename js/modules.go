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
	// The named exports sit on the module object's prototype, built on first read:
	// esbuild's interop (__toESM) copies a getter for every own property of an imported
	// module, and a prototype's are read through, never copied.
	named, namedObj := vu.newLazyObject(len(ex.Named))
	for _, k := range slices.Sorted(maps.Keys(ex.Named)) {
		named.add(k, ex.Named[k])
	}
	obj := vu.rt.NewObject()
	if err := obj.SetPrototype(namedObj); err != nil {
		panic(vu.rt.NewGoError(err))
	}
	if ex.Default != nil {
		_ = obj.Set("default", ex.Default)
	} else {
		_ = obj.Set("default", namedObj)
	}
	// Marks the object as an ES module for esbuild's interop helpers.
	_ = obj.Set("__esModule", true)
	vu.modules[name] = obj
	return obj
}
