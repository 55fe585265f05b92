package testrun

import (
	"sync"

	"github.com/omnik-dev/omnik/modules/omni/record"
)

// requestCounts counts each scenario's finished requests, ok and failed, for the
// progress lines: the engine counts iterations, and an iteration whose requests fail
// still completes.
type requestCounts struct {
	mu sync.Mutex
	by map[string]*[2]int64 // ok, failed
}

func newRequestCounts() *requestCounts { return &requestCounts{by: map[string]*[2]int64{}} }

// Add implements record.Subscriber.
func (c *requestCounts) Add(r *record.Record) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.by[r.Scenario]
	if n == nil {
		n = new([2]int64)
		c.by[r.Scenario] = n
	}
	switch {
	case r.OK():
		n[0]++
	case r.Failed(): // an interrupted request is neither
		n[1]++
	}
}

// of returns scenario's counts (engine.ProgressRequests).
func (c *requestCounts) of(scenario string) (ok, failed int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := c.by[scenario]; n != nil {
		return n[0], n[1]
	}
	return 0, 0
}

// all is every scenario's counts.
func (c *requestCounts) all() map[string]RequestCount {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]RequestCount, len(c.by))
	for name, n := range c.by {
		out[name] = RequestCount{OK: n[0], Failed: n[1]}
	}
	return out
}
