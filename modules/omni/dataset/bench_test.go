package dataset

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// BenchmarkLoadCustom100k loads 100k custom lines (a 40-word prompt, an output length, one
// extra field, every tenth with an image shared by all) and reports the heap the loaded
// dataset keeps, per entry.
func BenchmarkLoadCustom100k(b *testing.B) {
	dir := b.TempDir()
	img := syntheticImage(32, 32, 1)
	if err := os.WriteFile(filepath.Join(dir, "i.png"), img.Data, 0o600); err != nil {
		b.Fatal(err)
	}
	var sb strings.Builder
	r := newRand(1, streamWords)
	const n = 100_000
	for i := range n {
		media := ""
		if i%10 == 0 {
			media = `, "images": ["i.png"]`
		}
		fmt.Fprintf(&sb, `{"prompt": %q, "output_tokens": %d, "id": %d%s}`+"\n", words(r, 40), 64+i%64, i, media)
	}
	path := filepath.Join(dir, "big.jsonl")
	if err := os.WriteFile(path, []byte(sb.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(sb.Len()))
	b.ReportAllocs()
	var kept uint64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		d, err := Load(Spec{Name: Custom, Path: path})
		if err != nil || d.Len() != n {
			b.Fatal(d.Len(), err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		kept = after.HeapAlloc - before.HeapAlloc
		runtime.KeepAlive(d)
	}
	b.ReportMetric(float64(kept)/n, "kept-B/entry")
}
