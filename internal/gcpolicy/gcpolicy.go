// Package gcpolicy sets omnik's garbage-collector policy: GOGC 100 as Go's default, but
// with a heap floor, so a run whose live heap is small (tens of VUs: a few MB) does not
// collect every few MB of garbage. A load generator allocates per request and per chunk;
// at Go's default a 50-VU closed loop spends about a quarter of its CPU collecting, and
// that CPU is taken from the very loop whose timings it measures. Above the floor the
// collector paces as Go's default does, so memory per VU is what it would be anyway.
//
// GOGC or GOMEMLIMIT in the environment replace the policy: the user's choice wins.
package gcpolicy

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Floor is the heap size below which the collector does not start a cycle.
const Floor = 64 << 20

// Guard is the memory limit set while GOGC is raised above 100 for the floor.
const Guard = Floor + Floor/2

// percent is the GOGC above the floor, Go's own default.
const percent = 100

// maxPercent bounds GOGC when the live heap is tiny: the goal is then the floor anyway.
const maxPercent = 1 << 20

var once sync.Once

// Apply starts the policy unless GOGC or GOMEMLIMIT is set, and reports whether it is
// on; a second call starts nothing more.
func Apply() bool {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return false
	}
	once.Do(func() {
		t := &tuner{sample: []metrics.Sample{
			{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/stack:bytes"}, {Name: "/gc/scan/globals:bytes"},
		}}
		t.tune()
	})
	return true
}

// tuner re-sets GOGC after every collection from the heap that survived it.
type tuner struct {
	sample []metrics.Sample
}

func (t *tuner) tune() {
	metrics.Read(t.sample)
	var v [3]uint64
	for i, s := range t.sample {
		if s.Value.Kind() == metrics.KindUint64 {
			v[i] = s.Value.Uint64()
		}
	}
	p := Percent(v[0], v[1]+v[2])
	debug.SetGCPercent(p)
	// The GOGC set here paces the cycle after next too: it runs again only once that
	// cycle ends. Should the live heap leap meanwhile (a flood of big responses), a GOGC
	// raised for a small heap would let the heap grow many times over; the memory
	// limit bounds that window and is lifted as soon as Go's own pacing reaches the floor.
	limit := int64(math.MaxInt64)
	if p > percent {
		limit = Guard
	}
	debug.SetMemoryLimit(limit)
	// A cleanup of an object nothing references runs after the next cycle: re-arm then.
	runtime.AddCleanup(new(sentinel), func(t *tuner) { t.tune() }, t)
}

// sentinel holds a pointer, so it is never batched with other objects by the tiny
// allocator (which would keep it alive past its cycle).
type sentinel struct{ _ *byte }

// Percent is the GOGC that puts the next cycle's goal at the floor when Go's default
// would put it lower. Go's goal is live + (live + roots) × GOGC/100, roots being the
// goroutine stacks and globals it scans.
func Percent(live, roots uint64) int {
	scanned := live + roots
	if scanned == 0 || live >= Floor || live+scanned*percent/100 >= Floor {
		return percent
	}
	return int(min((Floor-live)*100/scanned, maxPercent))
}
