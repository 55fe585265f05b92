package js

import (
	"container/heap"
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// eventLoop runs one VU's JavaScript callbacks on the VU's goroutine. Go code running on
// other goroutines reserves a slot with register and hands back exactly one callback
// through it; the loop ends when nothing is queued, no slot is outstanding and no timer
// is armed, so an iteration covers all the async work it started.
type eventLoop struct {
	mu      sync.Mutex
	queue   []func() error
	pending int
	wakeup  chan struct{}
	// timers are the armed setTimeout/setInterval callbacks, earliest first. Only the
	// loop's goroutine touches them, and it runs them in due order however late it wakes:
	// a timer per goroutine would race its neighbours on a busy machine.
	timers timerHeap
	seq    uint64
	clock  *time.Timer // fires when timers[0] is due
}

func newEventLoop() *eventLoop {
	return &eventLoop{wakeup: make(chan struct{}, 1)}
}

// register reserves a slot. The returned function must be called exactly once, from any
// goroutine, with the callback to run on the loop (nil to release the slot without
// running anything); later calls are ignored.
func (l *eventLoop) register() func(func() error) {
	l.mu.Lock()
	l.pending++
	l.mu.Unlock()
	var done atomic.Bool
	return func(fn func() error) {
		if !done.CompareAndSwap(false, true) {
			return
		}
		l.mu.Lock()
		if fn != nil {
			l.queue = append(l.queue, fn)
		}
		l.pending--
		l.mu.Unlock()
		select {
		case l.wakeup <- struct{}{}:
		default:
		}
	}
}

// take hands over the queued callbacks and reports how many slots are outstanding. The
// slice is never reused: a callback that pumps the loop (sleep, a blocking omnik/http
// call) takes again while its caller is still walking the slice it was given.
func (l *eventLoop) take() ([]func() error, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	q := l.queue
	l.queue = nil
	return q, l.pending
}

// runReady runs the timers that are due, in due order, then the queued callbacks.
func (l *eventLoop) runReady() (queued int, pending int, err error) {
	now := time.Now()
	for len(l.timers) > 0 && !l.timers[0].due.After(now) {
		t := heap.Pop(&l.timers).(*loopTimer)
		if err := t.fn(); err != nil {
			return 0, 0, err
		}
	}
	q, pending := l.take()
	for i, fn := range q {
		q[i] = nil
		if err := fn(); err != nil {
			return 0, 0, err
		}
	}
	return len(q), pending, nil
}

// nextTimer is a channel that receives when the earliest armed timer is due; nil (never
// ready) when none is armed.
func (l *eventLoop) nextTimer() <-chan time.Time {
	if len(l.timers) == 0 {
		return nil
	}
	d := time.Until(l.timers[0].due)
	if l.clock == nil {
		l.clock = time.NewTimer(d)
	} else {
		l.clock.Reset(d)
	}
	return l.clock.C
}

// run calls first, then every due timer and queued callback until the loop is idle. On
// the first error or when ctx ends it stops running callbacks and waits for outstanding
// slots to be released, so nothing leaks into the next iteration.
func (l *eventLoop) run(ctx context.Context, first func() error) error {
	if err := first(); err != nil {
		return l.drain(err)
	}
	for {
		ran, pending, err := l.runReady()
		if err != nil {
			return l.drain(err)
		}
		if ran > 0 {
			continue
		}
		if pending == 0 && len(l.timers) == 0 {
			return nil
		}
		select {
		case <-l.wakeup:
		case <-l.nextTimer():
		case <-ctx.Done():
			return l.drain(ctx.Err())
		}
	}
}

// pumpUntil runs due callbacks until deadline; sleep uses it so timers and resolved
// native calls are not frozen while the script sleeps.
func (l *eventLoop) pumpUntil(ctx context.Context, deadline time.Time) error {
	done := make(chan struct{})
	t := time.AfterFunc(time.Until(deadline), func() { close(done) })
	defer t.Stop()
	return l.pumpWhile(ctx, done)
}

// pumpWhile runs due callbacks until done is closed or ctx ends. Timers due by the time
// done closes have run when it returns, however late the goroutine woke.
func (l *eventLoop) pumpWhile(ctx context.Context, done <-chan struct{}) error {
	for {
		if _, _, err := l.runReady(); err != nil {
			return err
		}
		select {
		case <-done:
			_, _, err := l.runReady()
			return err
		default:
		}
		select {
		case <-l.wakeup:
		case <-l.nextTimer():
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// drain disarms the timers, drops queued callbacks and waits for native work, which
// watches the same context, to release its slots.
func (l *eventLoop) drain(err error) error {
	for _, t := range l.timers {
		t.index = -1
	}
	l.timers = l.timers[:0]
	for {
		if _, pending := l.take(); pending == 0 {
			return err
		}
		<-l.wakeup
	}
}

// loopTimer is one armed setTimeout or setInterval callback.
type loopTimer struct {
	loop  *eventLoop
	due   time.Time
	seq   uint64 // arming order: timers due at the same instant run in it
	fn    func() error
	index int // in loop.timers; -1 once it ran or was cancelled
}

// after arms a timer that runs fn on the loop after d. Call only from the loop's goroutine.
func (l *eventLoop) after(d time.Duration, fn func() error) *loopTimer {
	l.seq++
	t := &loopTimer{loop: l, due: time.Now().Add(d), seq: l.seq, fn: fn}
	heap.Push(&l.timers, t)
	return t
}

// cancel disarms the timer; one that already ran is left alone.
func (t *loopTimer) cancel() {
	if t.index >= 0 {
		heap.Remove(&t.loop.timers, t.index)
	}
}

// timerHeap orders armed timers by due time, then arming order (container/heap).
type timerHeap []*loopTimer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if !h[i].due.Equal(h[j].due) {
		return h[i].due.Before(h[j].due)
	}
	return h[i].seq < h[j].seq
}
func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *timerHeap) Push(x any) {
	t := x.(*loopTimer)
	t.index = len(*h)
	*h = append(*h, t)
}
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	t.index = -1
	*h = old[:len(old)-1]
	return t
}
