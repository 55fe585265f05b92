package cputime

import "runtime"

// Cores is how many cores the process can keep busy at once: GOMAXPROCS, but never
// more than the CPUs its affinity mask allows (runtime.NumCPU reads that mask), so a
// client pinned with taskset to one core is judged on one core whatever GOMAXPROCS says.
func Cores() int { return max(min(runtime.GOMAXPROCS(0), runtime.NumCPU()), 1) }
