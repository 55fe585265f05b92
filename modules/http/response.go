package http

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/dop251/goja"
	"github.com/omnik-dev/omnik/js"
)

// run does the request and counts it, on the request's goroutine: a request the end of
// its iteration cut off still counts.
func (m *Module) run(ctx context.Context, vu *js.VU, s *spec) *result {
	r := m.do(ctx, s)
	vu.Collect(m.metrics.samples(s, r))
	return r
}

// blocking runs the request and returns its response, the VU's loop running meanwhile.
func (m *Module) blocking(vu *js.VU, s *spec) goja.Value {
	var r *result
	if err := vu.Wait(func(ctx context.Context) { r = m.run(ctx, vu, s) }); err != nil {
		panic(err)
	}
	return response(vu.Runtime(), s, r)
}

// async returns the promise of the response.
func (m *Module) async(vu *js.VU, s *spec) goja.Value {
	return vu.Runtime().ToValue(vu.Promise(func(ctx context.Context) js.Settle {
		r := m.run(ctx, vu, s)
		return func() (any, error) { return response(vu.Runtime(), s, r), nil }
	}))
}

// response is the script's view of a result. The body stays in Go until the script
// reads .body or calls .json(), and is converted once.
func response(rt *goja.Runtime, s *spec, r *result) *goja.Object {
	o := rt.NewObject()
	headers := rt.NewObject()
	for k, v := range r.header {
		_ = headers.Set(k, strings.Join(v, ", "))
	}
	timings := rt.NewObject()
	_ = timings.Set("duration", ms(r.duration))
	_ = timings.Set("waiting", ms(r.waiting))
	for k, v := range map[string]any{
		"ok": r.errKind == "", "status": r.status, "proto": r.proto, "url": r.url, "headers": headers,
		"timings": timings, "error": r.errMsg, "error_code": r.errKind,
	} {
		_ = o.Set(k, v)
	}
	var body, parsed goja.Value
	_ = o.DefineAccessorProperty("body", rt.ToValue(func() goja.Value {
		if body == nil {
			body = bodyValue(rt, s.responseType, r.body)
		}
		return body
	}), nil, goja.FLAG_FALSE, goja.FLAG_TRUE)
	_ = o.Set("json", func() goja.Value {
		if s.responseType != responseText {
			panic(rt.NewTypeError("res.json(): the request had responseType %q; use 'text' (the default)", s.responseType))
		}
		if parsed == nil {
			var v any
			if err := json.Unmarshal(r.body, &v); err != nil {
				panic(rt.NewTypeError("res.json(): the body is not JSON: %v", err))
			}
			parsed = rt.ToValue(v)
		}
		return parsed
	})
	return o
}

func bodyValue(rt *goja.Runtime, responseType string, b []byte) goja.Value {
	switch responseType {
	case responseBinary:
		return rt.ToValue(rt.NewArrayBuffer(b))
	case responseNone:
		return goja.Null()
	}
	return rt.ToValue(string(b))
}
