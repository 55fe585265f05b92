package js

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// eventLoop runs one VU's JavaScript callbacks on the VU's goroutine. Go code running on
// other goroutines reserves a slot with register and hands back exactly one callback
// through it; the loop ends when nothing is queued and no slot is outstanding, so an
// iteration covers all the async work it started.
type eventLoop struct {
	mu      sync.Mutex
	queue   []func() error
	spare   []func() error
	pending int
	wakeup  chan struct{}
	// cancels stops the timers still armed when an iteration ends early.
	timers map[*loopTimer]struct{}
}

func newEventLoop() *eventLoop {
	return &eventLoop{wakeup: make(chan struct{}, 1), timers: map[*loopTimer]struct{}{}}
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

// take swaps out the queued callbacks and reports how many slots are outstanding.
func (l *eventLoop) take() ([]func() error, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	q := l.queue
	l.queue, l.spare = l.spare[:0], q
	return q, l.pending
}

// run calls first, then every queued callback until the loop is idle. On the first
// error or when ctx ends it stops running callbacks and waits for outstanding slots to
// be released, so nothing leaks into the next iteration.
func (l *eventLoop) run(ctx context.Context, first func() error) error {
	if err := first(); err != nil {
		return l.drain(err)
	}
	for {
		q, pending := l.take()
		if len(q) == 0 {
			if pending == 0 {
				return nil
			}
			select {
			case <-l.wakeup:
			case <-ctx.Done():
				return l.drain(ctx.Err())
			}
			continue
		}
		for i, fn := range q {
			q[i] = nil
			if err := fn(); err != nil {
				return l.drain(err)
			}
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

// pumpWhile runs due callbacks until done is closed or ctx ends.
func (l *eventLoop) pumpWhile(ctx context.Context, done <-chan struct{}) error {
	for {
		q, _ := l.take()
		for i, fn := range q {
			q[i] = nil
			if err := fn(); err != nil {
				return err
			}
		}
		select {
		case <-done:
			return nil
		default:
		}
		select {
		case <-l.wakeup:
		case <-done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// drain stops the armed timers, drops queued callbacks and waits for native work, which
// watches the same context, to release its slots.
func (l *eventLoop) drain(err error) error {
	l.mu.Lock()
	timers := make([]*loopTimer, 0, len(l.timers))
	for t := range l.timers {
		timers = append(timers, t)
	}
	l.mu.Unlock()
	for _, t := range timers {
		t.cancel()
	}
	for {
		if _, pending := l.take(); pending == 0 {
			return err
		}
		<-l.wakeup
	}
}

// loopTimer is one setTimeout or setInterval registration.
type loopTimer struct {
	loop    *eventLoop
	timer   *time.Timer
	release func(func() error)
}

// after arms a timer that queues fn on the loop after d.
func (l *eventLoop) after(d time.Duration, fn func() error) *loopTimer {
	lt := &loopTimer{loop: l, release: l.register()}
	l.mu.Lock()
	l.timers[lt] = struct{}{}
	l.mu.Unlock()
	lt.timer = time.AfterFunc(d, func() {
		l.forget(lt)
		lt.release(fn)
	})
	return lt
}

// cancel disarms the timer; a timer that already fired is left to run.
func (t *loopTimer) cancel() {
	if t.timer.Stop() {
		t.loop.forget(t)
		t.release(nil)
	}
}

func (l *eventLoop) forget(t *loopTimer) {
	l.mu.Lock()
	delete(l.timers, t)
	l.mu.Unlock()
}
