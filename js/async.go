package js

import (
	"context"

	"github.com/dop251/goja"
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
