package engine

import (
	"context"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/js"
)

type noopVU struct{}

func (noopVU) RunIteration(context.Context, *js.Iteration) error { return nil }

// BenchmarkEmptyIteration measures the engine's cost per iteration with a VU that does
// nothing: b.N iterations of shared-iterations on one VU.
func BenchmarkEmptyIteration(b *testing.B) {
	for _, vus := range []int64{1, 2} {
		b.Run(map[int64]string{1: "1vu", 2: "2vus"}[vus], func(b *testing.B) {
			n := max(int64(b.N), vus)
			o, err := Consolidate(nil, Options{Source: "bench", VUs: &vus, Iterations: &n})
			if err != nil {
				b.Fatal(err)
			}
			r, err := New(Script{NewVU: func(context.Context, uint64) (VU, error) { return noopVU{}, nil }}, o)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			res := r.Run(context.Background())
			b.StopTimer()
			if res.IterationsCompleted != n {
				b.Fatalf("completed %d of %d", res.IterationsCompleted, n)
			}
		})
	}
}

// BenchmarkPoolFill10k measures starting 10,000 VUs with a no-op factory: the pool's
// own cost, without any script.
func BenchmarkPoolFill10k(b *testing.B) {
	newVU := func(context.Context, uint64) (VU, error) { return noopVU{}, nil }
	b.ReportAllocs()
	for b.Loop() {
		p := newPool(newVU)
		if err := p.fill(context.Background(), 10_000); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkArrivalDispatch measures an arrival-rate iteration end to end (schedule,
// hand-off to a worker, schedule_lag) at a rate far above what the VU pool serves, so
// the figure is dispatch overhead rather than waiting.
func BenchmarkArrivalDispatch(b *testing.B) {
	n := Rate(max(b.N, 1))
	o, err := Consolidate(nil, Options{Source: "bench", Scenarios: map[string]*ScenarioConfig{"s": {
		Executor: "poisson-arrival-rate", Rate: ptr(Rate(1e9)), Iterations: ptr(int64(n)), MaxVUs: ptr(int64(2)),
	}}})
	if err != nil {
		b.Fatal(err)
	}
	r, err := New(Script{NewVU: func(context.Context, uint64) (VU, error) { return noopVU{}, nil }}, o)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	res := r.Run(context.Background())
	b.StopTimer()
	if res.IterationsCompleted != int64(n) {
		b.Fatalf("completed %d of %d in %v", res.IterationsCompleted, int64(n), time.Since(start))
	}
}
