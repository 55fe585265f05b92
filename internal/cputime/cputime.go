// Package cputime reads what the process's own load costs it: the CPU time it used
// (user and system together) and how long its threads waited for a CPU. They are the
// evidence behind a client-saturation verdict: a client busy most of the wall time on its
// cores, or kept waiting for one by other processes, distorts what it measures.
package cputime

import "time"

// Process is the CPU time the process has used so far; ok is false where the platform
// does not say.
func Process() (d time.Duration, ok bool) { return process() }

// Share is the fraction of cores a process kept busy: cpu time used over wall time, on
// cores cores. 0 when wall or cores is not positive.
func Share(cpu, wall time.Duration, cores int) float64 {
	if wall <= 0 || cores <= 0 {
		return 0
	}
	return cpu.Seconds() / (wall.Seconds() * float64(cores))
}
