package mock

import (
	"sort"
	"sync"
	"time"
)

// scheduler is the server's view of the requests in flight, shared by the
// latency curve and the gauges of /metrics. vLLM runs a batch up to a limit
// and queues the rest; the knee plays that limit here: of the requests in
// flight, the KneeConcurrency admitted first are running and the others
// waiting. Waiting requests still progress, only slower, as the latency
// curve says, so num_requests_waiting rises exactly when latency does.
type scheduler struct {
	knee int

	mu          sync.Mutex
	live        map[*pipeline]struct{}
	seq         uint64
	peakRunning int
	peakWaiting int
}

func newScheduler(knee int) *scheduler {
	return &scheduler{knee: knee, live: map[*pipeline]struct{}{}}
}

// admit adds pl and returns how many requests are in flight, pl included.
func (sc *scheduler) admit(pl *pipeline) int {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.seq++
	pl.seq = sc.seq
	sc.live[pl] = struct{}{}
	n := len(sc.live)
	// Both grow with n only, so their peaks are reached on admission.
	running, waiting := sc.split(n)
	sc.peakRunning, sc.peakWaiting = max(sc.peakRunning, running), max(sc.peakWaiting, waiting)
	return n
}

func (sc *scheduler) leave(pl *pipeline) {
	sc.mu.Lock()
	delete(sc.live, pl)
	sc.mu.Unlock()
}

// split is how many of n requests in flight run and how many wait.
func (sc *scheduler) split(n int) (running, waiting int) {
	running = min(n, sc.knee)
	return running, n - running
}

func (sc *scheduler) peaks() (running, waiting int) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.peakRunning, sc.peakWaiting
}

// inFlight lists the requests in flight, first admitted first.
func (sc *scheduler) inFlight() []*pipeline {
	sc.mu.Lock()
	out := make([]*pipeline, 0, len(sc.live))
	for pl := range sc.live {
		out = append(out, pl)
	}
	sc.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

// view is where a request in flight is at now: the stage it works in and
// the tokens it holds in the KV cache (its prompt and what the engine stage
// made so far).
func (pl *pipeline) view(now time.Time) (stage, tokens int) {
	if !pl.ready.Load() {
		return 0, pl.tokensIn
	}
	p := pl.progress(now)
	return pl.steps[p].stage, pl.tokensIn + pl.engineCum[p]
}
