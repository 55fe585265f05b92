package gcpolicy

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

func TestPercent(t *testing.T) {
	for _, tc := range []struct {
		live uint64
		want int
	}{
		{0, 100},         // nothing read yet: Go's default
		{1 << 20, 6300},  // 1 MB live: the goal is the 64 MB floor
		{16 << 20, 300},  // 16 MB: ×4 reaches the floor
		{32 << 20, 100},  // 32 MB: ×2 is the floor itself
		{200 << 20, 100}, // above the floor: Go's default
		{Floor - 1, 100}, // ×2 is far above the floor
		{Floor / 3, 200}, // ×3 reaches the floor
	} {
		if got := Percent(tc.live); got != tc.want {
			t.Errorf("Percent(%d) = %d, want %d", tc.live, got, tc.want)
		}
	}
}

func TestApplyFollowsEveryCycle(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
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
