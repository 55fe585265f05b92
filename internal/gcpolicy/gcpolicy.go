// Package gcpolicy sets omnik's garbage-collector policy: GOGC 100 as Go's default, but
// with a heap floor, so a run whose live heap is small (tens of VUs: a few MB) does not
// collect every few MB of garbage. A load generator allocates per request and per chunk;
// at Go's default a 50-VU closed loop spends a fifth of its CPU in the collector, and
// that CPU is taken from the very loop whose timings it measures. Above the floor the
// collector paces as Go's default does, so memory per VU is what it would be anyway.
//
// GOGC or GOMEMLIMIT in the environment replace the policy: the user's choice wins.
package gcpolicy

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// Floor is the heap size below which the collector does not start a cycle.
const Floor = 64 << 20

// percent is the GOGC above the floor, Go's own default.
const percent = 100

// Apply starts the policy unless GOGC or GOMEMLIMIT is set, and reports whether it did.
func Apply() bool {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return false
	}
	t := &tuner{sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	t.tune()
	return true
}

// tuner re-sets GOGC after every collection from the heap that survived it.
type tuner struct {
	sample []metrics.Sample
}

func (t *tuner) tune() {
	metrics.Read(t.sample)
	var live uint64
	if v := t.sample[0].Value; v.Kind() == metrics.KindUint64 {
		live = v.Uint64()
	}
	debug.SetGCPercent(Percent(live))
	// A cleanup of an object nothing references runs after the next cycle: re-arm then.
	runtime.AddCleanup(new(sentinel), func(t *tuner) { t.tune() }, t)
}

// sentinel holds a pointer, so it is never batched with other objects by the tiny
// allocator (which would keep it alive past its cycle).
type sentinel struct{ _ *byte }

// Percent is the GOGC that puts the next cycle's goal at live × 2, or at the floor when
// that is higher.
func Percent(live uint64) int {
	if live == 0 || live*(100+percent)/100 >= Floor {
		return percent
	}
	return int(Floor*100/live) - 100
}
