package cputime

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

func TestParseSchedstat(t *testing.T) {
	for _, c := range []struct {
		in     string
		wait   time.Duration
		slices uint64
		ok     bool
	}{
		{"743877 16307563 2\n", 16307563, 2, true},
		{"0 0 1", 0, 1, true},
		{"1 2", 0, 0, false},
		{"a b c", 0, 0, false},
		{"1 -5 3", 0, 0, false},
	} {
		wait, slices, ok := parseSchedstat([]byte(c.in))
		if ok != c.ok || wait != c.wait || slices != c.slices {
			t.Errorf("parseSchedstat(%q) = %v, %d, %v", c.in, wait, slices, ok)
		}
	}
}

func FuzzParseSchedstat(f *testing.F) {
	f.Add([]byte("743877 16307563 2\n"))
	f.Add([]byte("18446744073709551615 18446744073709551615 1"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if wait, _, ok := parseSchedstat(b); ok && wait < 0 {
			t.Fatalf("negative wait %v from %q", wait, b)
		}
	})
}

// The waits only grow, and a process that keeps more goroutines spinning than it has
// cores takes time slices.
func TestReadWaits(t *testing.T) {
	before, ok := ReadWaits()
	if !ok {
		t.Skip("no schedstat on this platform")
	}
	var done atomic.Bool
	for range 2 * runtime.GOMAXPROCS(0) {
		go func() {
			for !done.Load() { // spin: more runnable threads' worth of work than cores
			}
		}()
	}
	time.Sleep(50 * time.Millisecond)
	done.Store(true)
	after, _ := ReadWaits()
	if after.Wait < before.Wait || after.Slices <= before.Slices {
		t.Errorf("waits went from %+v to %+v: want them to grow", before, after)
	}
	if m := before.MeanSince(after); m != 0 {
		t.Errorf("mean wait backwards %v, want 0", m)
	}
}

func TestMeanSince(t *testing.T) {
	before := Waits{Wait: 10 * time.Millisecond, Slices: 100}
	for _, c := range []struct {
		name  string
		after Waits
		want  time.Duration
	}{
		{"waits over slices", Waits{Wait: 40 * time.Millisecond, Slices: 110}, 3 * time.Millisecond},
		{"no slice taken", Waits{Wait: 40 * time.Millisecond, Slices: 100}, 0},
		// A thread that exited took more wait with it than the others added.
		{"less wait than before", Waits{Wait: 5 * time.Millisecond, Slices: 120}, 0},
	} {
		if got := c.after.MeanSince(before); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
