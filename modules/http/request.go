package http

import (
	"maps"
	"net/http"
	"strings"
	"time"

	"github.com/dop251/goja"
	"github.com/omnik-dev/omnik/js"
	"github.com/omnik-dev/omnik/metrics"
)

// DefaultTimeout bounds a request whose params set no timeout (k6's default).
const DefaultTimeout = 60 * time.Second

// Response types: what `.body` is.
const (
	responseText   = "text"   // a string, converted when the script first reads it
	responseBinary = "binary" // an ArrayBuffer over the bytes read
	responseNone   = "none"   // null: the body is read, counted and dropped
)

// spec is one request as the script asked for it, read on the VU's goroutine.
type spec struct {
	method, url  string
	body         []byte
	header       http.Header
	timeout      time.Duration
	responseType string
	tags         *metrics.TagSet // the VU's, the params', method and name
	meta         map[string]string
}

// prepare reads (method, url, body, params) into a spec. A malformed URL or parameter is
// the script's bug: it throws, where a request that fails resolves with its error.
func (m *Module) prepare(vu *js.VU, method string, urlV, bodyV, paramsV goja.Value) *spec {
	rt := vu.Runtime()
	if isNullish(urlV) {
		panic(rt.NewTypeError("http %s: the first argument must be the URL", method))
	}
	u, err := m.resolve(urlV.String())
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		msg := "want an http or https URL"
		if err != nil {
			msg = err.Error()
		}
		panic(rt.NewTypeError("http %s %s: %s", method, urlV, msg))
	}
	s := &spec{method: method, url: u.String(), header: http.Header{}, timeout: DefaultTimeout, responseType: responseText,
		meta: maps.Clone(vu.Metadata())}
	var contentType string
	s.body, contentType = requestBody(vu, bodyV)
	if contentType != "" {
		s.header.Set("Content-Type", contentType)
	}
	// The default name leaves out the query and user info: credentials must not become tags.
	name := u.Scheme + "://" + u.Host + u.EscapedPath()
	var tags *metrics.TagSet
	if po, ok := paramsV.(*goja.Object); ok {
		s.readParams(rt, po)
		tags = tagsOf(po.Get("tags"))
		if n, ok := tags.Get("name"); ok {
			name = n
		}
	}
	s.tags = vu.Tags().Merge(tags).With("method", method).With("name", name)
	return s
}

func (s *spec) readParams(rt *goja.Runtime, po *goja.Object) {
	if h, ok := po.Get("headers").(*goja.Object); ok {
		for _, k := range h.Keys() {
			s.header.Set(k, h.Get(k).String())
		}
	}
	if v := po.Get("timeout"); v != nil && !goja.IsUndefined(v) {
		d, ok := timeoutOf(v)
		if !ok {
			panic(rt.NewTypeError("http: timeout %s: want milliseconds or a duration like \"10s\", at most 24h", v))
		}
		s.timeout = d
	}
	if v := po.Get("responseType"); v != nil && !goja.IsUndefined(v) {
		switch t := v.String(); t {
		case responseText, responseBinary, responseNone:
			s.responseType = t
		default:
			panic(rt.NewTypeError("http: responseType %q: want text, binary or none", t))
		}
	}
}

// methodArg reads request()'s method: an HTTP token such as GET, in any case.
func methodArg(vu *js.VU, v goja.Value) string {
	m := ""
	if !isNullish(v) {
		m = strings.ToUpper(v.String())
	}
	if m == "" || strings.IndexFunc(m, func(r rune) bool { return !('A' <= r && r <= 'Z' || r == '-') }) >= 0 {
		panic(vu.Runtime().NewTypeError("http.request(method, url, …): %s is not an HTTP method", v))
	}
	return m
}

func isNullish(v goja.Value) bool { return v == nil || goja.IsUndefined(v) || goja.IsNull(v) }

// timeoutOf reads a timeout given in milliseconds or as a Go duration string.
func timeoutOf(v goja.Value) (time.Duration, bool) {
	if str, ok := v.Export().(string); ok {
		d, err := time.ParseDuration(str)
		return d, err == nil && d > 0 && d <= maxTimeout
	}
	f := v.ToFloat()
	// Past maxTimeout (and at Infinity) the conversion would overflow to a negative one.
	return time.Duration(f * float64(time.Millisecond)), f > 0 && f <= float64(maxTimeout/time.Millisecond)
}

// maxTimeout is the longest timeout accepted: a day.
const maxTimeout = 24 * time.Hour

// requestBody is the bytes to send and, for an object sent as JSON, its content type.
// A string is sent as UTF-8; an ArrayBuffer or typed array as its bytes, not copied.
func requestBody(vu *js.VU, v goja.Value) ([]byte, string) {
	if isNullish(v) {
		return nil, ""
	}
	switch x := v.Export().(type) {
	case string:
		return []byte(x), ""
	case goja.ArrayBuffer:
		return x.Bytes(), ""
	}
	o, ok := v.(*goja.Object)
	if !ok {
		return []byte(v.String()), ""
	}
	if buf := o.Get("buffer"); buf != nil {
		if _, isView := buf.Export().(goja.ArrayBuffer); isView {
			return vu.Bytes(v), ""
		}
	}
	b, err := o.MarshalJSON()
	if err != nil {
		panic(vu.Runtime().NewTypeError("http: the body object is not JSON-serialisable: %v", err))
	}
	return b, "application/json"
}

func tagsOf(v goja.Value) *metrics.TagSet {
	o, ok := v.(*goja.Object)
	if !ok {
		return nil
	}
	m := map[string]string{}
	for _, k := range o.Keys() {
		m[k] = o.Get(k).String()
	}
	return metrics.NewTagSet(m)
}
