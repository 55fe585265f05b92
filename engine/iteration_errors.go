package engine

import (
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"
)

// Limits of iteration error logging: a script that throws every iteration must not print
// a line per iteration (tens of thousands a second) and throttle the run on stderr.
const (
	errorsShownPerMessage = 3                // first occurrences of each distinct message
	errorsShownPerSecond  = 10               // lines a second overall
	errorsReportEvery     = 10 * time.Second // how often the hidden ones are counted out
	errorsTracked         = 1000             // distinct messages remembered; the rest count as "other"
	errorsReportLines     = 5                // messages named per report; the rest are summed
)

// errorKey is one distinct failure: the same message in the same scenario.
type errorKey struct{ scenario, message string }

// iterationErrors logs failed iterations: the first few of each distinct message, at most
// a few lines a second, and counts of the ones it did not show, reported with the first
// error errorsReportEvery after the last report and by flush at the end of the run. Safe
// for concurrent use.
type iterationErrors struct {
	log *slog.Logger
	now func() time.Time

	mu          sync.Mutex
	seen        map[errorKey]int // occurrences of each tracked message
	hidden      map[errorKey]int // not shown since the last report
	hiddenOther int              // not shown, of messages beyond errorsTracked
	window      time.Time        // start of the current one-second window
	inWindow    int              // lines shown in it
	reported    time.Time        // last report, or the first error
}

func newIterationErrors(log *slog.Logger, now func() time.Time) *iterationErrors {
	return &iterationErrors{log: log, now: now, seen: map[errorKey]int{}, hidden: map[errorKey]int{}}
}

// failed logs or counts one failed iteration of scenario.
func (e *iterationErrors) failed(scenario, message string) {
	now := e.now()
	k := errorKey{scenario, message}
	e.mu.Lock()
	show := e.admit(now, k)
	var report map[errorKey]int
	var other int
	if e.reported.IsZero() {
		e.reported = now
	} else if now.Sub(e.reported) >= errorsReportEvery {
		report, other = e.take()
		e.reported = now
	}
	e.mu.Unlock()
	if show {
		e.log.Error("iteration failed", "scenario", scenario, "error", message)
	}
	e.report(report, other)
}

// admit counts an occurrence of k and reports whether to show it.
func (e *iterationErrors) admit(now time.Time, k errorKey) bool {
	n, tracked := e.seen[k]
	if tracked || len(e.seen) < errorsTracked {
		e.seen[k] = n + 1
		tracked = true
	}
	if now.Sub(e.window) >= time.Second {
		e.window, e.inWindow = now, 0
	}
	if (!tracked || n < errorsShownPerMessage) && e.inWindow < errorsShownPerSecond {
		e.inWindow++
		return true
	}
	if tracked {
		e.hidden[k]++
	} else {
		e.hiddenOther++
	}
	return false
}

// take returns and resets the hidden counts.
func (e *iterationErrors) take() (map[errorKey]int, int) {
	if len(e.hidden) == 0 && e.hiddenOther == 0 {
		return nil, 0
	}
	h, o := e.hidden, e.hiddenOther
	e.hidden, e.hiddenOther = map[errorKey]int{}, 0
	return h, o
}

// flush reports the errors not shown yet; the run calls it when its scenarios end.
func (e *iterationErrors) flush() {
	e.mu.Lock()
	report, other := e.take()
	e.reported = e.now()
	e.mu.Unlock()
	e.report(report, other)
}

// report logs the most frequent hidden messages, one line each, and sums the rest.
func (e *iterationErrors) report(hidden map[errorKey]int, other int) {
	if len(hidden) == 0 && other == 0 {
		return
	}
	keys := make([]errorKey, 0, len(hidden))
	for k := range hidden {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if hidden[keys[i]] != hidden[keys[j]] {
			return hidden[keys[i]] > hidden[keys[j]]
		}
		return keys[i].scenario+keys[i].message < keys[j].scenario+keys[j].message
	})
	for i, k := range keys {
		if i == errorsReportLines {
			break
		}
		e.log.Error(fmt.Sprintf("… %d more iteration errors like this were not shown", hidden[k]), "scenario", k.scenario, "error", k.message)
	}
	for _, k := range keys[min(len(keys), errorsReportLines):] {
		other += hidden[k]
	}
	if other > 0 {
		e.log.Error(fmt.Sprintf("… %d more iteration errors with other messages were not shown", other))
	}
}
