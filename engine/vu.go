// Package engine runs a test: it consolidates options, plans scenarios, drives executors
// over a pool of VUs, stops gracefully and reports progress. It knows nothing of HTTP.
package engine

import (
	"context"

	"github.com/omnik-dev/omnik/js"
)

// VU runs iterations of a scenario function; *js.VU implements it. A VU is used by one
// goroutine at a time.
type VU interface {
	// RunIteration runs one iteration. It returns when the iteration and all async work
	// it started have finished, or when ctx is done (the iteration is then interrupted).
	// An error is an exception in the script: the iteration counts as failed, the VU
	// stays usable.
	RunIteration(ctx context.Context, it *js.Iteration) error
}

// Script is what the engine needs of a loaded script.
type Script struct {
	// NewVU initialises VU number id (1-based within this instance).
	NewVU func(ctx context.Context, id uint64) (VU, error)
	// Setup and Teardown are nil when the script does not export them.
	Setup    func(ctx context.Context) (js.SetupData, error)
	Teardown func(ctx context.Context, data js.SetupData) error
}
