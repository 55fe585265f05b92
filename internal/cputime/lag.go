package cputime

import (
	"context"
	"sync/atomic"
	"time"
)

// LagInterval is how long the lag probe sleeps between readings: ten readings a second
// catch a stall that lasts, while a wake-up costs 15 µs of CPU in a busy process (the
// probe's 0.015 % of a core) and 170 µs in an idle one on this machine class, which is
// why it is not 10 ms.
const LagInterval = 100 * time.Millisecond

// LagProbe measures how late the process runs a goroutine that is due: it sleeps
// LagInterval again and again and keeps how much longer each sleep took. A client
// whose cores are busy, or whose threads wait for a CPU, or which is in a long GC
// pause, wakes late, and so does every goroutine reading a response: the oversleep is
// the delay added to each timestamp taken then, Go's "event-loop lag".
type LagProbe struct {
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) bool
	worst atomic.Int64 // nanoseconds, the largest oversleep since the last TakeWorst
}

// NewLagProbe returns a probe on the real clock.
func NewLagProbe() *LagProbe { return newLagProbe(time.Now, sleepCtx) }

func newLagProbe(now func() time.Time, sleep func(context.Context, time.Duration) bool) *LagProbe {
	return &LagProbe{now: now, sleep: sleep}
}

// Run probes until ctx is done.
func (p *LagProbe) Run(ctx context.Context) {
	for {
		start := p.now()
		if !p.sleep(ctx, LagInterval) {
			return
		}
		over := p.now().Sub(start) - LagInterval
		for w := p.worst.Load(); int64(over) > w && !p.worst.CompareAndSwap(w, int64(over)); w = p.worst.Load() {
		}
	}
}

// TakeWorst returns the largest oversleep since the last call (0 when every wake-up was
// on time) and starts the next period.
func (p *LagProbe) TakeWorst() time.Duration { return time.Duration(max(p.worst.Swap(0), 0)) }

// sleepCtx sleeps d, or less when ctx is done; false then.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
