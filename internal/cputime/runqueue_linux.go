package cputime

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// readWaits sums /proc/self/task/*/schedstat: per thread, nanoseconds on a CPU,
// nanoseconds waiting on a run queue, and time slices. A thread that exited takes its
// share with it; Go's threads rarely exit.
func readWaits() (Waits, bool) {
	stats, err := filepath.Glob("/proc/self/task/*/schedstat")
	if err != nil || len(stats) == 0 {
		return Waits{}, false
	}
	var w Waits
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // the thread exited meanwhile
		}
		wait, slices, ok := parseSchedstat(b)
		if !ok {
			return Waits{}, false
		}
		w.Wait += wait
		w.Slices += slices
	}
	return w, true
}

// parseSchedstat reads one thread's line: "oncpu_ns wait_ns slices".
func parseSchedstat(b []byte) (time.Duration, uint64, bool) {
	f := bytes.Fields(b)
	if len(f) < 3 {
		return 0, 0, false
	}
	wait, err1 := strconv.ParseUint(string(f[1]), 10, 63)
	slices, err2 := strconv.ParseUint(string(f[2]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return time.Duration(wait), slices, true
}
