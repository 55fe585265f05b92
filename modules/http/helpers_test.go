package http

import (
	"context"
	"crypto/tls"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/omnik-dev/omnik/js"
	"github.com/omnik-dev/omnik/metrics"
)

type sink struct {
	mu sync.Mutex
	s  []metrics.Sample
}

func (k *sink) Collect(b []metrics.Sample) { k.mu.Lock(); k.s = append(k.s, b...); k.mu.Unlock() }

// of returns the samples of metric name.
func (k *sink) of(name string) []metrics.Sample {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []metrics.Sample
	for _, s := range k.s {
		if s.Metric.Name == name {
			out = append(out, s)
		}
	}
	return out
}

func tag(s metrics.Sample, key string) string { v, _ := s.Tags.Get(key); return v }

// env is what a test script runs with: the server its relative URLs reach, the
// iteration's context and extra modules.
type env struct {
	srv     *httptest.Server
	tls     *tls.Config // the run's TLS settings
	ctx     context.Context
	modules map[string]js.Module
}

// runScript runs one iteration of src with omnik/http and returns the samples, the VU
// (for its globals) and the iteration's error.
func runScript(t *testing.T, e env, src string) (*sink, *js.VU, error) {
	t.Helper()
	reg := metrics.NewRegistry()
	mod := New(RegisterMetrics(reg))
	t.Cleanup(mod.Close)
	mod.SetTLSConfig(e.tls)
	if e.srv != nil {
		if err := mod.SetBaseURL(e.srv.URL); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "s.js")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	k := &sink{}
	opts := []js.Option{js.WithRegistry(reg), js.WithCollector(k), js.WithModule("omnik/http", mod.JS())}
	for name, m := range e.modules {
		opts = append(opts, js.WithModule(name, m))
	}
	r, err := js.Load(path, opts...)
	if err != nil {
		return k, nil, err
	}
	vu, err := r.NewVU(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	ctx := e.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	return k, vu, vu.RunIteration(ctx, &js.Iteration{Scenario: &js.Scenario{Name: "s"}})
}

// mustRun is runScript for a script that must succeed and set globalThis.ok = 'ok'.
func mustRun(t *testing.T, e env, src string) *sink {
	t.Helper()
	k, vu, err := runScript(t, e, src)
	if err != nil {
		t.Fatalf("iteration: %s", js.Exception(err))
	}
	if ok := vu.Runtime().Get("ok"); ok == nil || ok.String() != "ok" {
		t.Fatalf("ok = %v", ok)
	}
	return k
}
