package metrics

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// BenchmarkCollect measures the VU side: one Collect call per batch, from all Ps at once,
// while the fold goroutine runs. ns/sample is the amortised cost per sample.
func BenchmarkCollect(b *testing.B) {
	reg := testRegistry()
	m := reg.Get("ttft")
	tags := NewTagSet(map[string]string{"stage": "thinker", "modality": "audio"})
	for _, size := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) {
			p := NewPipeline(WithSeriesWarning(1 << 30))
			_ = p.AddSubMetric(m, NewTagSet(map[string]string{"stage": "thinker"}))
			p.Start()
			b.RunParallel(func(pb *testing.PB) {
				batch := make([]Sample, size)
				for i := range batch {
					batch[i] = Sample{Metric: m, Tags: tags, Value: float64(i)}
				}
				for pb.Next() {
					p.Collect(batch) // the pipeline only reads batches, so reusing one is safe here
				}
			})
			b.StopTimer()
			p.Stop()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*size), "ns/sample")
		})
	}
}

// BenchmarkFold is the consumer side: Collect plus waiting until everything is folded.
func BenchmarkFold(b *testing.B) {
	m := testRegistry().Get("ttft")
	tags := NewTagSet(map[string]string{"stage": "thinker"})
	batch := make([]Sample, 64)
	for i := range batch {
		batch[i] = Sample{Metric: m, Tags: tags, Value: float64(i)}
	}
	p := NewPipeline()
	p.Start()
	for b.Loop() {
		p.Collect(batch)
	}
	p.Stop()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(batch)), "ns/sample")
}

// BenchmarkTrend10M adds 10 million samples to one Trend and reports the live heap:
// it must stop growing after the exact budget (plateau), not scale with the samples.
func BenchmarkTrend10M(b *testing.B) {
	for b.Loop() {
		t := NewTrendSink(DefaultTrendBudget)
		var at1M uint64
		for i := range 10_000_000 {
			t.AddValue(float64(i%100_000) * 0.37)
			if i == 1_000_000 {
				at1M = liveHeap()
			}
		}
		at10M := liveHeap()
		b.ReportMetric(float64(at1M)/1e6, "MB@1M")
		b.ReportMetric(float64(at10M)/1e6, "MB@10M")
		runtime.KeepAlive(t)
	}
}

func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkSummary100Metrics: 100 Trend metrics, half exact and half past the budget.
func BenchmarkSummary100Metrics(b *testing.B) {
	reg := NewRegistry()
	sinks := map[string]Sink{}
	var metrics []*Metric
	for i := range 100 {
		m := reg.MustNew(fmt.Sprintf("m%03d", i), Trend, Time)
		metrics = append(metrics, m)
		s := NewTrendSink(DefaultTrendBudget)
		n := 50_000
		if i%2 == 1 {
			n = 200_000
		}
		for j := range n {
			s.AddValue(float64((j*7919)%n) / 10)
		}
		sinks[m.Name] = s
	}
	for b.Loop() {
		// Clone as a pipeline snapshot does, so every iteration sorts afresh.
		cl := map[string]Sink{}
		for k, s := range sinks {
			cl[k] = s.Clone()
		}
		snap := NewSnapshot(time.Minute, cl)
		snap.Metrics = metrics
		NewSummary(snap, Evaluation{}, SummaryOptions{})
	}
}

func TestTrendMemoryPlateaus(t *testing.T) {
	if testing.Short() {
		t.Skip("adds 3 million samples")
	}
	s := NewTrendSink(DefaultTrendBudget)
	var at1M uint64
	for i := range 3_000_000 {
		s.AddValue(float64(i) * 0.01)
		if i == 1_000_000 {
			at1M = liveHeap()
		}
	}
	if at3M := liveHeap(); at3M > at1M+256<<10 {
		t.Errorf("heap grew from %d to %d bytes between 1M and 3M samples", at1M, at3M)
	}
	runtime.KeepAlive(s)
}
