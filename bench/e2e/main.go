// Command e2e measures the omnik binary end to end: it builds omnik, starts a chat
// server that stamps every chunk with its send time on core 1, runs omnik scenarios and
// `omnik bench` on core 0 (taskset), and prints CPU per request and per chunk, the delay
// the client adds to each chunk, RSS per VU and the first requests' start, each the
// median of -runs runs. With k6 on PATH it runs k6's rows beside omnik's.
//
//	go run ./bench/e2e                 # 3 runs of every row, about 6 minutes
//	go run ./bench/e2e -runs 1 -rows request,chunk
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

func main() {
	if v := os.Getenv(serverEnv); v != "" {
		if err := serve(50); err != nil {
			fmt.Fprintln(os.Stderr, "stamping server:", err)
			os.Exit(1)
		}
		return
	}
	omnik := flag.String("omnik", "", "the omnik binary (default: go build ./cmd/omnik)")
	runs := flag.Int("runs", 3, "runs of each row; the table prints medians")
	rows := flag.String("rows", strings.Join(rowNames, ","), "rows to run")
	duration := flag.Duration("duration", 10*time.Second, "length of the request and delay runs")
	profile := flag.String("profile", "", "write a CPU profile of every omnik run into this directory")
	flag.Parse()
	h := &harness{omnik: *omnik, duration: *duration, profile: *profile}
	if err := bench(h, *runs, strings.Split(*rows, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
}

func bench(h *harness, runs int, rows []string) error {
	if runtime.NumCPU() < 2 {
		return fmt.Errorf("want 2 cores (client on 0, server on 1), have %d", runtime.NumCPU())
	}
	tmp, err := os.MkdirTemp("", "omnik-e2e-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if h.omnik == "" {
		h.omnik = filepath.Join(tmp, "omnik")
		build := exec.Command("go", "build", "-o", h.omnik, "./cmd/omnik")
		build.Stdout, build.Stderr = os.Stdout, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("go build ./cmd/omnik: %w", err)
		}
	}
	addr, stop, err := startServer()
	if err != nil {
		return err
	}
	defer stop()
	h.scripts, h.tmp, h.base = filepath.Join("bench", "e2e", "scripts"), tmp, "http://"+addr
	if _, err := os.Stat(h.scripts); err != nil {
		return fmt.Errorf("run from the repository's root: %w", err)
	}
	if k6, err := exec.LookPath("k6"); err == nil {
		h.k6 = k6
	}
	t := &table{runs: runs}
	for _, name := range rows {
		row, ok := rowsByName[name]
		if !ok {
			return fmt.Errorf("no row %q (rows: %s)", name, strings.Join(rowNames, ", "))
		}
		for i := range runs {
			fmt.Fprintf(os.Stderr, "%s run %d/%d\n", name, i+1, runs)
			if err := row(h, t); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
	}
	t.print(os.Stdout, h.k6 != "")
	return nil
}
