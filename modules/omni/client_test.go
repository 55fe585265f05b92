package omni

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// modelServer answers GET /v1/models with status and body, counting the requests; gate,
// when set, holds every answer until it is closed.
type modelServer struct {
	mu     sync.Mutex
	status int
	body   string
	gate   chan struct{}
	hits   atomic.Int32
}

func (s *modelServer) set(status int, body string) {
	s.mu.Lock()
	s.status, s.body = status, body
	s.mu.Unlock()
}

func (s *modelServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.hits.Add(1)
	if s.gate != nil {
		<-s.gate
	}
	s.mu.Lock()
	status, body := s.status, s.body
	s.mu.Unlock()
	w.WriteHeader(status)
	w.Write([]byte(body))
}

// discoveryTarget is a target without a configured model against ms, with a clock the
// test moves and the warnings it logged.
func discoveryTarget(t *testing.T, ms *modelServer) (c *target, advance func(time.Duration), warnings func() []string) {
	srv := httptest.NewServer(ms)
	t.Cleanup(srv.Close)
	c = newTarget(Config{BaseURL: srv.URL}, nil)
	t.Cleanup(c.close)
	var mu sync.Mutex
	var warned []string
	now := time.Unix(1000, 0)
	c.warn = func(s string) { mu.Lock(); warned = append(warned, s); mu.Unlock() }
	c.models.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance = func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	warnings = func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), warned...) }
	return c, advance, warnings
}

func TestModelDiscoveryRetriesAfterAFailureAndWarnsOnce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, why    string
		status       int
		body         string
		cancelCaller bool
	}{
		{"unauthorized", "HTTP 401", 401, `{"data":[{"id":"not-a-model"}]}`, false},
		{"server not ready", "HTTP 503", 503, `loading`, false},
		{"bad json", "invalid character", 200, `<html>`, false},
		{"empty list", "lists no model", 200, `{"data":[]}`, false},
		{"first caller cancelled", "", 200, `{"data":[{"id":"m1"}]}`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ms := &modelServer{status: tc.status, body: tc.body}
			c, advance, warnings := discoveryTarget(t, ms)
			ctx := context.Background()
			if tc.cancelCaller {
				// The first call's iteration already ended: that must not decide the run.
				cctx, cancel := context.WithCancel(ctx)
				cancel()
				c.model(cctx)
				if got := c.model(ctx); got != "m1" {
					t.Fatalf("after a cancelled first caller, model = %q, want m1", got)
				}
				if w := warnings(); len(w) != 0 {
					t.Errorf("warned %q", w)
				}
				return
			}
			if got := c.model(ctx); got != "" {
				t.Fatalf("model = %q from a failed discovery", got)
			}
			ms.set(200, `{"object":"list","data":[{"id":"m1"},{"id":"m2"}]}`)
			if got := c.model(ctx); got != "" || ms.hits.Load() != 1 {
				t.Fatalf("asked again right after a failure: model %q, %d requests", got, ms.hits.Load())
			}
			advance(modelRetryEvery)
			if got := c.model(ctx); got != "m1" {
				t.Fatalf("model = %q after the retry delay, want m1", got)
			}
			c.model(ctx)
			if ms.hits.Load() != 2 {
				t.Errorf("%d requests, want 2: a found model is kept", ms.hits.Load())
			}
			if w := warnings(); len(w) != 1 || !strings.Contains(w[0], tc.why) {
				t.Errorf("warnings %q, want one saying %q", w, tc.why)
			}
		})
	}
}

func TestModelDiscoveryRunsOnceForConcurrentCalls(t *testing.T) {
	t.Parallel()
	ms := &modelServer{status: 200, body: `{"data":[{"id":"m1"}]}`, gate: make(chan struct{})}
	c, _, _ := discoveryTarget(t, ms)
	var wg sync.WaitGroup
	got := make([]string, 8)
	for i := range got {
		wg.Go(func() { got[i] = c.model(context.Background()) })
	}
	time.Sleep(50 * time.Millisecond)
	close(ms.gate)
	wg.Wait()
	for i, m := range got {
		if m != "m1" {
			t.Errorf("call %d got %q", i, m)
		}
	}
	if n := ms.hits.Load(); n != 1 {
		t.Errorf("%d lookups for concurrent calls, want 1", n)
	}
}

func TestConfiguredModelIsNeverLookedUp(t *testing.T) {
	t.Parallel()
	ms := &modelServer{status: 200, body: `{"data":[{"id":"m1"}]}`}
	srv := httptest.NewServer(ms)
	defer srv.Close()
	c := newTarget(Config{BaseURL: srv.URL, Model: "mine"}, nil)
	defer c.close()
	if got := c.model(context.Background()); got != "mine" || ms.hits.Load() != 0 {
		t.Errorf("model %q after %d lookups", got, ms.hits.Load())
	}
}
