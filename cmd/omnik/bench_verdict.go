package main

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/omnik-dev/omnik/engine"
)

// outcomes counts the benchmark's requests as the script reports them, from every VU's
// goroutine, keeping the first failure's reason.
type outcomes struct {
	mu                sync.Mutex
	completed, failed int
	firstError        string
}

// add is omnik/bench's outcome(ok, error message), called after every benchmark request.
func (o *outcomes) add(ok bool, message string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if ok {
		o.completed++
		return
	}
	if o.failed == 0 {
		o.firstError = message
	}
	o.failed++
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
