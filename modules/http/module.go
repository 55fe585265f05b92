// Package http is the `omnik/http` JavaScript module: plain HTTP calls (health checks,
// side requests) timed, tagged and counted in Go like omni calls, with bodies kept in Go
// until the script reads them.
package http

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/dop251/goja"
	"github.com/omnik-dev/omnik/js"
)

// Module is the omnik/http module of one run: one connection pool shared by its VUs.
type Module struct {
	metrics *Metrics
	client  *http.Client
	// transport is the client's, under any wrapper, for SetTLSConfig.
	transport *http.Transport

	mu   sync.Mutex
	base *url.URL // relative URLs resolve against it
}

// Option configures a Module.
type Option func(*Module)

// WithTransport wraps the module's HTTP transport (--http-debug prints its exchanges).
func WithTransport(wrap func(http.RoundTripper) http.RoundTripper) Option {
	return func(m *Module) { m.client.Transport = wrap(m.client.Transport) }
}

// New makes the module of one run; its samples are those of m (RegisterMetrics).
func New(m *Metrics, opts ...Option) *Module {
	tr := &http.Transport{
		Proxy:       http.ProxyFromEnvironment,
		DialContext: (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		// A load test opens as many connections as it has requests in flight.
		MaxIdleConnsPerHost: 100000,
		IdleConnTimeout:     90 * time.Second,
		// Bodies are counted as they come over the wire, not decompressed behind our back.
		DisableCompression: true,
	}
	mod := &Module{metrics: m, client: &http.Client{Transport: tr}, transport: tr}
	for _, o := range opts {
		o(mod)
	}
	return mod
}

// SetBaseURL sets what a relative URL ("/health") resolves against: the omni module's
// server, so a script reaches the server under test (and the simulator) without
// knowing its address.
func (m *Module) SetBaseURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("omnik/http: base URL %q: %w", raw, err)
	}
	m.mu.Lock()
	m.base = u
	m.mu.Unlock()
	return nil
}

// SetTLSConfig sets the TLS settings of the module's connections: the run's (skip
// verification, CA file, client certificate), the omni module's default client's. It is
// called while the test loads, before any request.
func (m *Module) SetTLSConfig(c *tls.Config) { m.transport.TLSClientConfig = c }

func (m *Module) resolve(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	if u.IsAbs() {
		return u, nil
	}
	m.mu.Lock()
	base := m.base
	m.mu.Unlock()
	if base == nil {
		return nil, fmt.Errorf("%q is relative and there is no base URL to resolve it against", raw)
	}
	return base.ResolveReference(u), nil
}

// Close releases idle connections.
func (m *Module) Close() { m.client.CloseIdleConnections() }

// JS is the module as scripts import it: `import http from 'omnik/http'`. get, post and
// the rest block the VU until the response is read (its loop keeps running), like k6's;
// asyncRequest returns a promise.
func (m *Module) JS() js.Module {
	return func(vu *js.VU) (*js.Exports, error) {
		call := func(name, method string, hasBody bool) func(goja.FunctionCall) goja.Value {
			return func(c goja.FunctionCall) goja.Value {
				vu.RequireVUContext("http." + name + "()")
				body, params := c.Argument(1), c.Argument(2)
				if !hasBody {
					body, params = goja.Undefined(), c.Argument(1)
				}
				return m.blocking(vu, m.prepare(vu, method, c.Argument(0), body, params))
			}
		}
		named := map[string]any{
			"request": func(c goja.FunctionCall) goja.Value {
				vu.RequireVUContext("http.request()")
				return m.blocking(vu, m.prepare(vu, methodArg(vu, c.Argument(0)), c.Argument(1), c.Argument(2), c.Argument(3)))
			},
			"asyncRequest": func(c goja.FunctionCall) goja.Value {
				vu.RequireVUContext("http.asyncRequest()")
				return m.async(vu, m.prepare(vu, methodArg(vu, c.Argument(0)), c.Argument(1), c.Argument(2), c.Argument(3)))
			},
		}
		for name, method := range map[string]string{"get": http.MethodGet, "head": http.MethodHead} {
			named[name] = call(name, method, false)
		}
		for name, method := range map[string]string{"post": http.MethodPost, "put": http.MethodPut,
			"patch": http.MethodPatch, "del": http.MethodDelete, "options": http.MethodOptions} {
			named[name] = call(name, method, true)
		}
		return &js.Exports{Named: named}, nil
	}
}
