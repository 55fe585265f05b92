package cputime

import (
	"testing"
	"time"
)

// A busy loop's CPU time shows: the clock moves forward by at least what it was given
// to burn, counted on the process's own clock rather than the wall's.
func TestProcessCountsWorkDone(t *testing.T) {
	before, ok := Process()
	if !ok {
		t.Skip("no process CPU clock on this platform")
	}
	var after time.Duration
	for after-before < 20*time.Millisecond {
		if after, _ = Process(); after < before {
			t.Fatalf("CPU time went back: %v then %v", before, after)
		}
	}
}

func TestShare(t *testing.T) {
	for _, c := range []struct {
		cpu, wall time.Duration
		cores     int
		want      float64
	}{
		{time.Second, time.Second, 1, 1},
		{time.Second, time.Second, 2, 0.5},
		{3 * time.Second, 2 * time.Second, 2, 0.75},
		{time.Second, 0, 2, 0},
		{time.Second, time.Second, 0, 0},
	} {
		if got := Share(c.cpu, c.wall, c.cores); got != c.want {
			t.Errorf("Share(%v, %v, %d) = %v, want %v", c.cpu, c.wall, c.cores, got, c.want)
		}
	}
}
