package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/record"
)

// Whatever record a file holds, folding it and printing the blocks never panics and
// stays within memory: a re-report of a hostile file is safe.
func FuzzAccumulateDecoded(f *testing.F) {
	for _, r := range append(mixedRun(), stagedRun()...) {
		b, _ := json.Marshal(r)
		f.Add(b)
	}
	f.Add([]byte(`{"schema":"omnik.record/v2","endpoint":"chat","start":"2026-01-01T00:00:00Z","ok":true,"offset_ms":-9e9,"e2el_ms":9e9,"text_chunks":[{"at_ms":1,"bytes":2000000000,"tokens":2000000000},{"at_ms":2,"bytes":5,"tokens":2147483647}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := record.Decode(data)
		if err != nil {
			return
		}
		s := NewSection(SectionOptions{Scenarios: []string{"a", "b"}, TrendBudget: 8})
		s.Add(r)
		s.Add(r)
		var out bytes.Buffer
		if err := s.Text(&out); err != nil {
			t.Fatal(err)
		}
		a := NewAccumulator(Options{})
		a.Add(r)
		_ = a.Result(time.Second)
	})
}

// FuzzParseGoodput: an SLO that parses has a non-negative bound.
func FuzzParseGoodput(f *testing.F) {
	for _, s := range []string{"ttft:500", "e2el:20000,ttft:1", "audio_ttft:0", "ttft:1e400", "ttft:9e15", "tpot:-1", "x:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		slos, err := ParseGoodput(strings.Split(s, ","))
		if err != nil {
			return
		}
		for _, slo := range slos {
			if slo.Max < 0 {
				t.Fatalf("%q gave %s < %v", s, slo.Metric, slo.Max)
			}
		}
	})
}
