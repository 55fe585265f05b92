package engine

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// pool owns every VU of a run. Executors borrow VUs and give them back, so a VU
// initialised for one scenario serves the next one too.
type pool struct {
	newVU func(ctx context.Context, id uint64) (VU, error)

	mu   sync.Mutex
	idle []VU // a stack: the most recently used VU is reused first

	lastID      atomic.Uint64
	initialized atomic.Int64
	borrowed    atomic.Int64
	// peak is the most VUs borrowed since the gauges were last sampled.
	peak atomic.Int64
	// changed is signalled (coalesced) when borrowed changes, so the vus gauge sees
	// short-lived peaks that a once-a-second sample would miss.
	changed chan struct{}
}

func newPool(newVU func(context.Context, uint64) (VU, error)) *pool {
	return &pool{newVU: newVU, changed: make(chan struct{}, 1)}
}

func (p *pool) borrow(delta int64) {
	n := p.borrowed.Add(delta)
	for {
		old := p.peak.Load()
		if n <= old || p.peak.CompareAndSwap(old, n) {
			break
		}
	}
	select {
	case p.changed <- struct{}{}:
	default:
	}
}

// create initialises one new VU with the next id.
func (p *pool) create(ctx context.Context) (VU, error) {
	id := p.lastID.Add(1)
	vu, err := p.newVU(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("initialising VU %d: %w", id, err)
	}
	p.initialized.Add(1)
	return vu, nil
}

// fill initialises n VUs before the run, on as many goroutines as there are CPUs since
// VU init is CPU-bound script evaluation. VU 1 ends on top of the idle stack.
func (p *pool) fill(ctx context.Context, n int64) error {
	if n <= 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	vus := make([]VU, n)
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	base := p.lastID.Add(uint64(n)) - uint64(n)
	for range min(int64(runtime.GOMAXPROCS(0)), n) {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < n && ctx.Err() == nil; i = next.Add(1) - 1 {
				vu, err := p.newVU(ctx, base+uint64(i)+1)
				if err != nil {
					errOnce.Do(func() { firstErr = fmt.Errorf("initialising VU %d: %w", base+uint64(i)+1, err); cancel() })
					return
				}
				vus[i] = vu
				p.initialized.Add(1)
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	slices.Reverse(vus)
	p.mu.Lock()
	p.idle = append(p.idle, vus...)
	p.mu.Unlock()
	return nil
}

// get borrows an idle VU, or initialises a new one when none is idle.
func (p *pool) get(ctx context.Context) (VU, error) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		vu := p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		p.borrow(1)
		return vu, nil
	}
	p.mu.Unlock()
	vu, err := p.create(ctx)
	if err != nil {
		return nil, err
	}
	p.borrow(1)
	return vu, nil
}

// put gives a borrowed VU back.
func (p *pool) put(vu VU) {
	p.borrow(-1)
	p.mu.Lock()
	p.idle = append(p.idle, vu)
	p.mu.Unlock()
}

// takePeak returns the most VUs borrowed since the last call and starts a new window
// at the current count.
func (p *pool) takePeak() int64 {
	cur := p.borrowed.Load()
	return max(p.peak.Swap(cur), cur)
}
