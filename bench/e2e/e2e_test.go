package main

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestChunkDelaysJoinRecordsToStamps(t *testing.T) {
	start := time.Unix(100, 0)
	recs := []record{{RequestID: "a", Start: start}}
	recs[0].TextChunks = append(recs[0].TextChunks, struct {
		AtMS float64 `json:"at_ms"`
	}{1.5}, struct {
		AtMS float64 `json:"at_ms"`
	}{21.5})
	// Sent 1.0 ms and 21.25 ms after the start: the client saw them 0.5 and 0.25 ms later.
	byID := map[string]stamps{"a": {ID: "a", Chunks: []int64{start.UnixNano() + 1_000_000, start.UnixNano() + 21_250_000}}}
	ds, err := chunkDelays(recs, byID)
	if err != nil || len(ds) != 2 || ds[0] != 500*time.Microsecond || ds[1] != 250*time.Microsecond {
		t.Fatalf("delays %v (%v), want [500µs 250µs]", ds, err)
	}
	byID["a"] = stamps{ID: "a", Chunks: []int64{1}}
	if _, err := chunkDelays(recs, byID); err == nil {
		t.Error("a record with more chunks than the server sent joined without an error")
	}
	if _, err := chunkDelays(recs, map[string]stamps{}); err == nil {
		t.Error("a record the server never saw joined without an error")
	}
}

func TestTransitsSplitFirstRequests(t *testing.T) {
	start := time.Unix(100, 0)
	recs := []record{
		{RequestID: "a", Start: start, SentMS: 2, Metadata: map[string]string{"iter": "0"}},
		{RequestID: "b", Start: start, SentMS: 0.01, Metadata: map[string]string{"iter": "1"}},
	}
	byID := map[string]stamps{"a": {Recv: start.UnixNano() + 3e6}, "b": {Recv: start.UnixNano() + 1e5}}
	first, later, err := transits(recs, byID)
	if err != nil || len(first.total) != 1 || first.total[0] != 3*time.Millisecond || first.setUp[0] != 2*time.Millisecond ||
		len(later.total) != 1 || later.total[0] != 100*time.Microsecond {
		t.Fatalf("first %+v later %+v (%v)", first, later, err)
	}
}

func TestQuantileAndMedian(t *testing.T) {
	ds := []time.Duration{5, 1, 4, 2, 3}
	for _, tc := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 3}, {0.9, 5}, {1, 5}, {0, 1}, {0.2, 1}} {
		if got := quantile(ds, tc.q); got != tc.want {
			t.Errorf("quantile(%v) = %v, want %v", tc.q, got, tc.want)
		}
	}
	if median([]float64{3, 1, 2}) != 2 || median([]float64{4, 1, 2, 3}) != 2.5 || median(nil) != 0 {
		t.Error("median")
	}
}

// The server streams max_tokens stamped chunks, then the usage chunk and [DONE], and
// hands over each request's stamps once.
func TestStampServerStreams(t *testing.T) {
	s := &stampServer{rate: 1000}
	srv := httptest.NewServer(http.HandlerFunc(s.chat))
	defer srv.Close()
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{"stream":true,"max_tokens":5,"bench_rate":2000}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var events []string
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			events = append(events, d)
		}
	}
	if len(events) != 7 || events[6] != "[DONE]" || !strings.Contains(events[5], `"finish_reason":"length"`) {
		t.Fatalf("events %q: want 5 chunks, the usage chunk and [DONE]", events)
	}
	if len(s.records) != 1 || len(s.records[0].Chunks) != 5 || s.records[0].Recv == 0 {
		t.Fatalf("stamps %+v", s.records)
	}
	for i := 1; i < 5; i++ {
		if s.records[0].Chunks[i] <= s.records[0].Chunks[i-1] {
			t.Errorf("stamps not increasing: %v", s.records[0].Chunks)
		}
	}
	rec := httptest.NewRecorder()
	s.handOver(rec, nil)
	byID, err := decodeStamps(rec.Body)
	if err != nil || len(byID) != 1 || len(s.records) != 0 {
		t.Errorf("hand-over gave %v (%v), kept %d", byID, err, len(s.records))
	}
}

func TestTablePrintsMediansAndMarks(t *testing.T) {
	tb := &table{runs: 3}
	for _, v := range []float64{30, 10, 20} {
		tb.add("CPU per chunk", "µs", 20, v)
	}
	tb.add("p50", "ms", 0, 0.1)
	var b bytes.Buffer
	tb.print(&b, false)
	out := b.String()
	for _, want := range []string{"CPU per chunk  20 µs", "30 10 20", "≤ 20 µs  ✓", "k6: not on PATH"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}
