package main

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// outcomes counts the benchmark's requests from the run's record stream (warmups and
// the test request are discarded, so never in it), keeping the first failure's reason.
// A request the run cut off is neither completed nor failed.
type outcomes struct {
	mu                sync.Mutex
	completed, failed int
	firstError        string
}

// Add implements record.Subscriber.
func (o *outcomes) Add(r *record.Record) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case r.OK():
		o.completed++
	case r.Failed():
		if o.failed == 0 {
			o.firstError = r.Err.Message
		}
		o.failed++
	}
}

// verdict is the exit of a run that went to its end: a benchmark that completed no
// request measured nothing, so it fails (exit 110) with the server's reason, where the
// run would have exited 0.
func (o *outcomes) verdict(err error, log *slog.Logger) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.completed > 0 || o.failed == 0 {
		return err
	}
	log.Error(fmt.Sprintf("no request completed: all %d failed; the first: %s", o.failed, o.firstError))
	var exit *exitOnly
	if errors.As(err, &exit) && exit.code == engine.ExitOK {
		return &exitOnly{code: engine.ExitFailed}
	}
	return err
}
