package js

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/dop251/goja"
)

// dataModule is `import { SharedArray } from 'omnik/data'`.
func dataModule(vu *VU) (*Exports, error) {
	return &Exports{Named: map[string]any{"SharedArray": vu.sharedArray}}, nil
}

// sharedStore holds each SharedArray once per run, as decoded Go values: VUs read them
// through read-only wrappers, so nothing is copied or re-parsed per VU or per access.
type sharedStore struct {
	mu     sync.Mutex
	arrays map[string]*sharedArray
}

type sharedArray struct {
	once  sync.Once
	items []any
	err   error
}

func newSharedStore() *sharedStore { return &sharedStore{arrays: map[string]*sharedArray{}} }

func (s *sharedStore) get(name string) *sharedArray {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.arrays[name]
	if !ok {
		a = &sharedArray{}
		s.arrays[name] = a
	}
	return a
}

func (vu *VU) sharedArray(c goja.ConstructorCall) *goja.Object {
	vu.RequireInitContext("new SharedArray()")
	name := c.Argument(0).String()
	fn, ok := goja.AssertFunction(c.Argument(1))
	if name == "" || !ok {
		panic(vu.rt.NewTypeError("SharedArray(name, fn) needs a non-empty name and a function returning an array"))
	}
	arr := vu.runner.shared.get(name)
	arr.once.Do(func() { arr.items, arr.err = vu.buildShared(name, fn) })
	if arr.err != nil {
		panic(vu.rt.NewGoError(arr.err))
	}
	return vu.rt.NewDynamicArray(&frozenArray{rt: vu.rt, items: arr.items})
}

func (vu *VU) buildShared(name string, fn goja.Callable) ([]any, error) {
	v, err := fn(goja.Undefined())
	if err != nil {
		return nil, fmt.Errorf("SharedArray %q: %s", name, Exception(err))
	}
	obj, ok := v.(*goja.Object)
	if !ok || obj.ClassName() != "Array" {
		return nil, fmt.Errorf("SharedArray %q: the function must return an array", name)
	}
	raw, err := obj.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("SharedArray %q: elements must be JSON data: %w", name, err)
	}
	var items []any
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("SharedArray %q: %w", name, err)
	}
	return items, nil
}

// frozen wraps decoded JSON data as read-only JS values without copying it.
func frozen(rt *goja.Runtime, v any) goja.Value {
	switch x := v.(type) {
	case map[string]any:
		return rt.NewDynamicObject(&frozenObject{rt: rt, m: x})
	case []any:
		return rt.NewDynamicArray(&frozenArray{rt: rt, items: x})
	}
	return rt.ToValue(v)
}

type frozenArray struct {
	rt    *goja.Runtime
	items []any
}

func (a *frozenArray) Len() int { return len(a.items) }
func (a *frozenArray) Get(i int) goja.Value {
	if i < 0 || i >= len(a.items) {
		return goja.Undefined()
	}
	return frozen(a.rt, a.items[i])
}
func (a *frozenArray) Set(int, goja.Value) bool { return false }
func (a *frozenArray) SetLen(int) bool          { return false }

type frozenObject struct {
	rt *goja.Runtime
	m  map[string]any
}

func (o *frozenObject) Get(k string) goja.Value {
	v, ok := o.m[k]
	if !ok {
		return nil
	}
	return frozen(o.rt, v)
}
func (o *frozenObject) Set(string, goja.Value) bool { return false }
func (o *frozenObject) Has(k string) bool           { _, ok := o.m[k]; return ok }
func (o *frozenObject) Delete(string) bool          { return false }
func (o *frozenObject) Keys() []string {
	keys := make([]string, 0, len(o.m))
	for k := range o.m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
