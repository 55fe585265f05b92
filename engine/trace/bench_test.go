package trace

import (
	"bytes"
	"fmt"
	"testing"
)

// A Mooncake trace of 100 000 lines parses in one pass and keeps about its own size.
func BenchmarkParseMooncake100k(b *testing.B) {
	var buf bytes.Buffer
	for i := range 100_000 {
		fmt.Fprintf(&buf, `{"timestamp": %d, "input_length": %d, "output_length": 64, "hash_ids": [%d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d]}`+"\n",
			i*3, 7800+i%300, i%7, i%11, i, i+1, i+2, i+3, i+4, i+5, i+6, i+7, i+8, i+9, i+10, i+11, i+12, i+13)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(bytes.NewReader(data), "bench.jsonl", ""); err != nil {
			b.Fatal(err)
		}
	}
}
