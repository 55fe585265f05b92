package engine

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/js"
	"github.com/omnik-dev/omnik/metrics"
)

// fakeVU runs a Go function as its iteration.
type fakeVU struct {
	id uint64
	fn func(ctx context.Context, vu uint64, it *js.Iteration) error
}

func (v *fakeVU) RunIteration(ctx context.Context, it *js.Iteration) error {
	return v.fn(ctx, v.id, it)
}

func fakeScript(fn func(ctx context.Context, vu uint64, it *js.Iteration) error) Script {
	return Script{NewVU: func(_ context.Context, id uint64) (VU, error) { return &fakeVU{id: id, fn: fn}, nil }}
}

// sleeper is an iteration that takes d, or less when interrupted.
func sleeper(d time.Duration) func(context.Context, uint64, *js.Iteration) error {
	return func(ctx context.Context, _ uint64, _ *js.Iteration) error {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
		}
		return nil
	}
}

// gauge tracks how many iterations run at once and the most ever.
type gauge struct{ now, peak atomic.Int64 }

func (g *gauge) wrap(fn func(context.Context, uint64, *js.Iteration) error) func(context.Context, uint64, *js.Iteration) error {
	return func(ctx context.Context, vu uint64, it *js.Iteration) error {
		n := g.now.Add(1)
		for p := g.peak.Load(); n > p && !g.peak.CompareAndSwap(p, n); p = g.peak.Load() {
		}
		defer g.now.Add(-1)
		return fn(ctx, vu, it)
	}
}

// recorder is a metrics.Collector that keeps every sample.
type recorder struct {
	mu      sync.Mutex
	samples []metrics.Sample
}

func (r *recorder) Collect(s []metrics.Sample) {
	r.mu.Lock()
	r.samples = append(r.samples, s...)
	r.mu.Unlock()
}

func (r *recorder) values(name string) []float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []float64
	for _, s := range r.samples {
		if s.Metric.Name == name {
			out = append(out, s.Value)
		}
	}
	return out
}

func (r *recorder) sum(name string) (sum float64) {
	for _, v := range r.values(name) {
		sum += v
	}
	return sum
}

// syncBuffer is a bytes.Buffer safe for a logger and a test to share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// newRun consolidates opts (JSON) and builds a run of script that records its samples.
func newRun(t *testing.T, opts string, script Script, options ...Option) (*Run, *recorder) {
	t.Helper()
	o, _, err := ParseOptions("test options", []byte(opts), nil)
	if err != nil {
		t.Fatal(err)
	}
	if o, err = Consolidate(nil, o); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	b := metrics.RegisterBuiltins(metrics.NewRegistry())
	r, err := New(script, o, append([]Option{WithMetrics(rec, b)}, options...)...)
	if err != nil {
		t.Fatal(err)
	}
	return r, rec
}

func within(t *testing.T, what string, got, lo, hi float64) {
	t.Helper()
	if got < lo || got > hi {
		t.Errorf("%s = %v, want %v..%v", what, got, lo, hi)
	}
}

func slogTo(w *syncBuffer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

func countLines(s, sub string) int {
	n := 0
	for _, l := range bytes.Split([]byte(s), []byte("\n")) {
		if bytes.Contains(l, []byte(sub)) {
			n++
		}
	}
	return n
}
