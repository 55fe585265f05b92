package js

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

const trivialScript = `import { check } from 'omnik';
export const options = { vus: 1 };
export default function () {}
`

func loadTrivial(b *testing.B) *Runner {
	b.Helper()
	path := filepath.Join(b.TempDir(), "trivial.js")
	if err := os.WriteFile(path, []byte(trivialScript), 0o644); err != nil {
		b.Fatal(err)
	}
	r, err := Load(path)
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// BenchmarkVUStart reports CPU per VU start and the heap each idle VU retains.
func BenchmarkVUStart(b *testing.B) {
	r := loadTrivial(b)
	vus := make([]*VU, 0, b.N)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		vu, err := r.NewVU(context.Background(), uint64(i+1))
		if err != nil {
			b.Fatal(err)
		}
		vus = append(vus, vu)
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(b.N)/1024, "KB-retained/VU")
	runtime.KeepAlive(vus)
}

// BenchmarkEmptyIteration is the runtime's cost of one iteration of an empty function.
func BenchmarkEmptyIteration(b *testing.B) {
	r := loadTrivial(b)
	vu, err := r.NewVU(context.Background(), 1)
	if err != nil {
		b.Fatal(err)
	}
	it := &Iteration{Scenario: &Scenario{Name: "default"}}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := vu.RunIteration(ctx, it); err != nil {
			b.Fatal(err)
		}
	}
}
