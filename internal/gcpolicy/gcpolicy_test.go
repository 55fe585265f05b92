package gcpolicy

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

func TestPercent(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct {
		live, roots uint64
		want        int
	}{
		{0, 0, 100},             // nothing read yet: Go's default
		{1 * mb, 0, 6300},       // 1 MB live: the goal is the 64 MB floor
		{16 * mb, 0, 300},       // 16 + 16 × 3 = 64
		{10 * mb, 6 * mb, 337},  // stacks and globals count: 10 + 16 × 3.37 ≈ 64
		{32 * mb, 0, 100},       // ×2 is the floor itself
		{24 * mb, 20 * mb, 100}, // 24 + 44 × 1 ≥ 64: the default already reaches it
		{200 * mb, 0, 100},      // above the floor: Go's default
		{Floor + 1, 0, 100},     // live past the floor
		{1, 0, maxPercent},      // a tiny heap: bounded, never wrapping into "off"
	} {
		if got := Percent(tc.live, tc.roots); got != tc.want {
			t.Errorf("Percent(%d, %d) = %d, want %d", tc.live, tc.roots, got, tc.want)
		}
		if got := Percent(tc.live, tc.roots); got > 100 && got < maxPercent {
			scanned := tc.live + tc.roots
			if goal := tc.live + scanned*uint64(got)/100; goal > Floor || goal < Floor-scanned/100 {
				t.Errorf("Percent(%d, %d) = %d puts the goal at %d, want the floor %d", tc.live, tc.roots, got, goal, Floor)
			}
		}
	}
}

func TestApplyFollowsEveryCycle(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	if !Apply() {
		t.Fatal("Apply did not start with GOGC and GOMEMLIMIT unset")
	}
	// A small test heap is far below the floor, so after a cycle GOGC is raised; the
	// cleanup that re-tunes runs on its own goroutine, some time after the cycle.
	debug.SetGCPercent(100)
	for range 1000 {
		runtime.GC()
		if gogc() > 100 {
			// A negative limit reads the limit without changing it.
			if l := debug.SetMemoryLimit(-1); l != Guard {
				t.Errorf("memory limit %d while GOGC is raised, want the guard %d", l, Guard)
			}
			return
		}
		runtime.Gosched()
	}
	t.Errorf("GOGC after 1000 cycles = %d, want it raised above 100 for a heap below the floor", gogc())
}

func gogc() int64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

func TestTheUsersSettingWins(t *testing.T) {
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, "200")
			if Apply() {
				t.Errorf("Apply started with %s set", env)
			}
		})
	}
}
