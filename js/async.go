package js

import (
	"context"

	"github.com/dop251/goja"
	"github.com/omnik-dev/omnik/metrics"
)

// Settle builds, on the VU's loop, the value a promise resolves to (or the error it
// rejects with).
type Settle func() (any, error)

// Promise runs work on its own goroutine with the current iteration's context and
// settles the returned promise on the VU's loop. work must return promptly once ctx
// ends; the iteration waits for it. Call only from the VU's goroutine.
func (vu *VU) Promise(work func(ctx context.Context) Settle) *goja.Promise {
	p, resolve, reject := vu.rt.NewPromise()
	enqueue := vu.loop.register()
	ctx := vu.ctx
	go func() {
		settle := work(ctx)
		enqueue(func() error {
			v, err := settle()
			if err != nil {
				return reject(vu.rt.NewGoError(err))
			}
			return resolve(v)
		})
	}()
	return p
}

// Register reserves a slot on the VU's loop for Go code that will call back into
// JavaScript later (for example an onEvent callback per streamed chunk). The returned
// function must be called exactly once, from any goroutine; nil releases the slot.
func (vu *VU) Register() func(func() error) { return vu.loop.register() }

// Wait runs work on its own goroutine with the current iteration's context and keeps
// the VU's loop running until it returns, so a blocking call (omnik/http's get) does not
// freeze timers and settled native calls meanwhile. work must return promptly once ctx
// ends. The error is a callback's that failed meanwhile; work has returned either way.
// Call only from the VU's goroutine.
func (vu *VU) Wait(work func(ctx context.Context)) error {
	done := make(chan struct{})
	ctx := vu.ctx
	go func() {
		defer close(done)
		work(ctx)
	}()
	// Not ctx: when it ends, work ends too, and the loop keeps serving until it has.
	err := vu.loop.pumpWhile(context.Background(), done)
	<-done
	return err
}

// Collect sends samples to the run's metrics now; unlike Emit it may be called from any
// goroutine, so a call's reader counts the call even when its iteration was cut off.
func (vu *VU) Collect(samples []metrics.Sample) { vu.runner.cfg.collector.Collect(samples) }
