package main

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary be the benchmark's server process too.
func TestMain(m *testing.M) {
	if v := os.Getenv(serverEnv); v != "" {
		procs, _ := strconv.Atoi(v)
		if err := serve(procs); err != nil {
			os.Exit(1)
		}
	}
	os.Exit(m.Run())
}

func TestSmallRunReceivesEveryChunk(t *testing.T) {
	cfg := config{streams: 8, rate: 40, duration: time.Second, serverProcs: 1}
	res, err := run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.failed != 0 || res.sent != 320 || res.received != res.sent {
		t.Fatalf("sent %d, received %d, failed streams %d; want 320 received, none failed", res.sent, res.received, res.failed)
	}
	if res.minDelay < 0 || res.p50 < res.minDelay || res.p99 < res.p50 || res.maxDelay < res.p99 {
		t.Errorf("delays min %v p50 %v p99 %v max %v: want 0 ≤ min ≤ p50 ≤ p99 ≤ max", res.minDelay, res.p50, res.p99, res.maxDelay)
	}
	if res.cpuPerChunk <= 0 || res.bytesPerStream <= 0 {
		t.Errorf("cpu per chunk %v, bytes per stream %v: want both > 0", res.cpuPerChunk, res.bytesPerStream)
	}
	var out strings.Builder
	res.print(&out, cfg)
	for _, want := range []string{"8 streams × 40 chunks/s", "received 320", "µs per chunk", "p99", "KB per open stream"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}
