// Command streaming measures what omnik's streaming client costs: a child process sends
// N concurrent SSE chat streams × M chunks/s, each chunk stamped with its send time, and
// this process reads them with modules/omni/client.Chat, the SSE reader, chunk decoder
// and record builder a run uses. It reports the client's CPU per chunk, the delay it adds
// (arrival in the record − send stamp) and its memory per open stream.
//
//	go run ./bench/streaming -streams 1000 -rate 50 -duration 10s
//
// The server is a child process, not goroutines of this one, so getrusage and the heap
// count the client alone; both still share the machine's cores (-server-procs sets the
// child's GOMAXPROCS).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"time"
)

func main() {
	if v := os.Getenv(serverEnv); v != "" {
		procs, _ := strconv.Atoi(v)
		if err := serve(max(procs, 1)); err != nil {
			fmt.Fprintln(os.Stderr, "streaming server:", err)
			os.Exit(1)
		}
		return
	}
	var cfg config
	flag.IntVar(&cfg.streams, "streams", 100, "concurrent SSE streams")
	flag.Float64Var(&cfg.rate, "rate", 50, "chunks per second on each stream")
	flag.DurationVar(&cfg.duration, "duration", 10*time.Second, "how long each stream lasts")
	flag.IntVar(&cfg.serverProcs, "server-procs", 1, "GOMAXPROCS of the server process")
	cpuProfile := flag.String("cpuprofile", "", "write the client's CPU profile to this file")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "streaming:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	res, err := run(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "streaming:", err)
		return
	}
	res.print(os.Stdout, cfg)
}

// print writes the report with the targets.
func (r result) print(w io.Writer, cfg config) {
	mark := func(ok bool) string {
		if ok {
			return "✓"
		}
		return "✗"
	}
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	fmt.Fprintf(w, "%d streams × %g chunks/s for %v (server: child process, GOMAXPROCS=%d; client GOMAXPROCS=%d; %d CPUs)\n",
		cfg.streams, cfg.rate, cfg.duration, cfg.serverProcs, runtime.GOMAXPROCS(0), runtime.NumCPU())
	fmt.Fprintf(w, "chunks         sent %d, received %d, failed streams %d\n", r.sent, r.received, r.failed)
	fmt.Fprintf(w, "cpu            %.2f µs per chunk (%.2f s of %.2f s wall)  %s ≤ 20 µs\n",
		us(r.cpuPerChunk), r.cpu.Seconds(), r.wall.Seconds(), mark(r.cpuPerChunk <= 20*time.Microsecond))
	fmt.Fprintf(w, "added delay    p50 %.1f µs  %s ≤ 100 µs;  p99 %.1f µs  %s ≤ 5 ms;  min %.1f µs, max %.1f µs\n",
		us(r.p50), mark(r.p50 <= 100*time.Microsecond), us(r.p99), mark(r.p99 <= 5*time.Millisecond), us(r.minDelay), us(r.maxDelay))
	fmt.Fprintf(w, "memory         %.1f KB per open stream (heap+stacks at mid-run / streams)  %s ≤ 64 KB\n",
		r.bytesPerStream/1024, mark(r.bytesPerStream <= 64*1024))
}
