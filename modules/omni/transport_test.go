package omni

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// roundTripFunc counts what goes through a wrapped transport.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestWithTransportWrapsEveryClient(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"data":[{"id":"m1"}]}`))
	}))
	defer srv.Close()
	var seen atomic.Int32
	m := New(WithTransport(func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			seen.Add(1)
			return next.RoundTrip(r)
		})
	}))
	defer m.Close()
	if err := m.Configure(Config{BaseURL: srv.URL}); err != nil {
		t.Fatal(err)
	}
	if got := m.Model(); got != "m1" {
		t.Fatalf("default client's model = %q", got)
	}
	other, _, err := m.newScriptClient(map[string]any{"baseURL": srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.listModels(); err != nil {
		t.Fatal(err)
	}
	if n := seen.Load(); n != 2 {
		t.Errorf("%d requests went through the wrapper, want 2 (default client and omni.client())", n)
	}
}
