package js

import (
	"slices"

	"github.com/dop251/goja"
)

// lazyObject is a goja.DynamicObject whose values become JavaScript values on their first
// read. A native function costs about half a kilobyte in each runtime and most scripts
// use few of a VU's globals and module exports, so a VU builds only those it touches.
type lazyObject struct {
	rt      *goja.Runtime
	entries []lazyEntry
	build   func(key string) any // for the entries NewLazyObject made
}

type lazyEntry struct {
	key string
	src any // converted with ToValue on first read; a Lazy is called first
	val goja.Value
}

// Lazy is a value built on its first read: a module's named export, or an entry of a
// lazy object's, that most scripts never read.
type Lazy func() any

// byBuild marks an entry whose value the object's build function makes.
type byBuild struct{}

// NewLazyObject makes an object with the properties names, in that order, whose values
// build makes on the first read of each (once per name): an API object most scripts
// use a little of costs a few bytes until they use it. Scripts may still add, change
// and delete its properties.
func (vu *VU) NewLazyObject(names []string, build func(name string) any) *goja.Object {
	l, o := vu.newLazyObject(len(names))
	l.build = build
	for _, n := range names {
		l.entries = append(l.entries, lazyEntry{key: n, src: byBuild{}})
	}
	return o
}

// newLazyObject makes the object; add its entries with add before scripts see it.
func (vu *VU) newLazyObject(n int) (*lazyObject, *goja.Object) {
	l := &lazyObject{rt: vu.rt, entries: make([]lazyEntry, 0, n)}
	return l, vu.rt.NewDynamicObject(l)
}

// add sets key to src (a Go value or a Lazy), replacing an entry of the same key.
func (l *lazyObject) add(key string, src any) {
	if i := l.find(key); i >= 0 {
		l.entries[i] = lazyEntry{key: key, src: src}
		return
	}
	l.entries = append(l.entries, lazyEntry{key: key, src: src})
}

func (l *lazyObject) find(key string) int {
	for i := range l.entries {
		if l.entries[i].key == key {
			return i
		}
	}
	return -1
}

// Get implements goja.DynamicObject.
func (l *lazyObject) Get(key string) goja.Value {
	i := l.find(key)
	if i < 0 {
		return nil
	}
	e := &l.entries[i]
	if e.val == nil {
		src := e.src
		switch f := src.(type) {
		case byBuild:
			src = l.build(key)
		case Lazy:
			src = f()
		}
		// src may have changed the entries (a build that reads its own object).
		v := l.rt.ToValue(src)
		if i = l.find(key); i < 0 {
			return v
		}
		e = &l.entries[i]
		if e.val == nil {
			e.src, e.val = nil, v
		}
	}
	return e.val
}

// Set implements goja.DynamicObject.
func (l *lazyObject) Set(key string, val goja.Value) bool {
	if i := l.find(key); i >= 0 {
		l.entries[i].src, l.entries[i].val = nil, val
		return true
	}
	l.entries = append(l.entries, lazyEntry{key: key, val: val})
	return true
}

// Has implements goja.DynamicObject.
func (l *lazyObject) Has(key string) bool { return l.find(key) >= 0 }

// Delete implements goja.DynamicObject.
func (l *lazyObject) Delete(key string) bool {
	if i := l.find(key); i >= 0 {
		l.entries = slices.Delete(l.entries, i, i+1)
	}
	return true
}

// Keys implements goja.DynamicObject.
func (l *lazyObject) Keys() []string {
	keys := make([]string, len(l.entries))
	for i := range l.entries {
		keys[i] = l.entries[i].key
	}
	return keys
}
