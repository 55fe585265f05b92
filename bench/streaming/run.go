package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/modules/omni/client"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// config is one benchmark run.
type config struct {
	streams     int
	rate        float64 // chunks per second per stream
	duration    time.Duration
	serverProcs int
}

// result is what a run measured.
type result struct {
	sent, received, failed int
	cpu, wall, cpuPerChunk time.Duration
	p50, p99               time.Duration
	minDelay, maxDelay     time.Duration
	bytesPerStream         float64
}

// body is the chat request every stream sends, with the defaults omni.chat() adds.
var body = []byte(`{"model":"bench","messages":[{"role":"user","content":"hi"}],"stream":true,` +
	`"stream_options":{"include_usage":true,"continuous_usage_stats":true},"return_stage_metrics":true}`)

func run(cfg config) (result, error) {
	n := int(cfg.rate * cfg.duration.Seconds())
	if cfg.streams <= 0 || n <= 0 {
		return result{}, fmt.Errorf("want streams > 0 and rate × duration ≥ 1, got %d streams, %d chunks", cfg.streams, n)
	}
	addr, stop, err := startServer(cfg.serverProcs)
	if err != nil {
		return result{}, err
	}
	defer stop()
	hc := client.NewHTTPClient()
	defer hc.CloseIdleConnections()
	interval := time.Duration(float64(time.Second) / cfg.rate)
	before := liveBytes()

	// The two clocks read together: arrival times are time.Time, stamps raw nanotime.
	wallBase, monoBase := time.Now(), nanotime()
	cpu0 := cpuTime()
	records := make([]*record.Record, cfg.streams)
	var wg sync.WaitGroup
	for i := range records {
		// Phases spread the streams' chunks evenly over one interval.
		url := fmt.Sprintf("http://%s/v1/chat/completions?n=%d&rate=%g&phase=%d", addr, n, cfg.rate, int64(interval)*int64(i)/int64(cfg.streams))
		wg.Go(func() {
			records[i] = client.Chat(context.Background(), hc, client.Request{URL: url, Body: body, StallTimeout: 30 * time.Second})
		})
	}
	mid := make(chan int64, 1)
	go func() {
		time.Sleep(cfg.duration / 2)
		mid <- liveBytes()
	}()
	wg.Wait()
	res := result{cpu: cpuTime() - cpu0, wall: time.Since(wallBase), sent: cfg.streams * n}
	res.bytesPerStream = float64(<-mid-before) / float64(cfg.streams)

	delays := make([]time.Duration, 0, res.sent)
	for _, r := range records {
		if !r.OK() {
			res.failed++
		}
		stamps := strings.Fields(r.Text)
		if len(stamps) != len(r.TextChunks) {
			return res, fmt.Errorf("a record has %d text chunks but %d stamps", len(r.TextChunks), len(stamps))
		}
		for i, c := range r.TextChunks {
			sent, err := strconv.ParseInt(stamps[i], 10, 64)
			if err != nil {
				return res, fmt.Errorf("chunk %d: stamp %q: %w", i, stamps[i], err)
			}
			arrived := monoBase + int64(r.Start.Add(c.At).Sub(wallBase))
			delays = append(delays, time.Duration(arrived-sent))
		}
	}
	res.received = len(delays)
	if res.received == 0 {
		return res, fmt.Errorf("no chunk arrived (%d streams failed)", res.failed)
	}
	res.cpuPerChunk = res.cpu / time.Duration(res.received)
	// The statistics omnik prints, computed the way it computes them (exact here).
	sink := metrics.NewTrendSink(len(delays))
	for _, d := range delays {
		sink.AddValue(float64(d))
	}
	stat := func(st metrics.Stat) time.Duration {
		v, _ := sink.Value(st, 0)
		return time.Duration(v)
	}
	res.p50, res.p99 = stat(metrics.Percentile(50)), stat(metrics.Percentile(99))
	res.minDelay, res.maxDelay = stat(metrics.Stat{Name: "min"}), stat(metrics.Stat{Name: "max"})
	return res, nil
}

// cpuTime is this process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// liveBytes is the heap and goroutine stacks in use after a collection.
func liveBytes() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse + m.StackInuse)
}

// startServer runs this program again as the streaming server and returns its address
// and a function that ends it.
func startServer(procs int) (string, func(), error) {
	exe, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), serverEnv+"="+strconv.Itoa(max(procs, 1)))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("server process: %w", err)
	}
	stop := func() { stdin.Close(); _ = cmd.Wait() }
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("server process gave no address: %w", err)
	}
	return strings.TrimSpace(addr), stop, nil
}
