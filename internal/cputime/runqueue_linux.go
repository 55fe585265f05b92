package cputime

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// readWaits sums /proc/self/task/*/schedstat: per thread, nanoseconds on a CPU,
// nanoseconds waiting on a run queue, and time slices. A thread that exited takes its
// share with it; Go's threads rarely exit. The task directory's names are read, not
// globbed: a glob stats every match, which costs ten times the rest, once a second.
func readWaits() (Waits, bool) {
	dir, err := os.Open("/proc/self/task")
	if err != nil {
		return Waits{}, false
	}
	tids, err := dir.Readdirnames(-1)
	dir.Close()
	if err != nil || len(tids) == 0 {
		return Waits{}, false
	}
	var w Waits
	for _, tid := range tids {
		b, err := os.ReadFile("/proc/self/task/" + tid + "/schedstat")
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
