package cputime

import "time"

// Waits is how long the process's threads waited, runnable, for a CPU, over how many
// times they got one: a client starved by other processes (or by its own load) waits
// there before it reads a response or starts an arrival, and every time it stamps
// carries that wait, while its CPU time says nothing.
type Waits struct {
	Wait   time.Duration
	Slices uint64
}

// ReadWaits reads the process's waits so far; ok is false where the platform does not
// say (Linux's schedstat does).
func ReadWaits() (w Waits, ok bool) { return readWaits() }

// MeanSince is the mean wait for a CPU per time slice since before; 0 without any.
func (w Waits) MeanSince(before Waits) time.Duration {
	if w.Slices <= before.Slices {
		return 0
	}
	return (w.Wait - before.Wait) / time.Duration(w.Slices-before.Slices)
}
