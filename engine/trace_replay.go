package engine

import (
	"math"
	"sync"
	"time"

	"github.com/omnik-dev/omnik/engine/trace"
)

// traceReplay starts one iteration per entry of a request log, at the entry's offset
// divided by speed, with the arrival-rate executors' VU pool and accounting. Turns of
// one session never overlap: a turn due while the previous one runs waits for it (the
// wait is schedule lag) and then runs on the same VU.
type traceReplay struct {
	arrivalPool
	trace *trace.Trace
	speed float64
	// owned are the entries this segment replays, in time order. A session belongs
	// whole to the segment that owns its first turn, so its turns can wait for each other.
	owned []int
}

func buildTraceReplay(c *check, sc *ScenarioConfig, seg Segment) executor {
	e := &traceReplay{arrivalPool: buildArrivalPool(c, sc, seg, false), speed: 1}
	if sc.Speed != nil {
		if !(*sc.Speed > 0) || math.IsInf(*sc.Speed, 1) {
			c.failf("\"speed\" must be a positive number, got %v", *sc.Speed)
		}
		e.speed = *sc.Speed
	}
	if !c.required("trace", sc.Trace != "") || c.err != nil {
		return e
	}
	t, err := sc.traces.load(sc.Trace, sc.Format)
	if err != nil {
		c.failf("%v", err)
		return e
	}
	if float64(t.Span())/e.speed > float64(trace.MaxOffset) {
		c.failf("at \"speed\" %v the trace would last %s, more than %s", e.speed, time.Duration(float64(t.Span())/e.speed).Round(time.Second), trace.MaxOffset)
		return e
	}
	e.trace = t
	first := make([]int, len(t.Sessions))
	for i := range first {
		first[i] = -1
	}
	for i, en := range t.Entries {
		owner := i
		if en.Session >= 0 {
			if first[en.Session] < 0 {
				first[en.Session] = i
			}
			owner = first[en.Session]
		}
		if seg.Owns(int64(owner)) {
			e.owned = append(e.owned, i)
		}
	}
	return e
}

// at is entry i's offset from the scenario's start.
func (e *traceReplay) at(i int) time.Duration {
	return time.Duration(float64(e.trace.Entries[i].Offset) / e.speed)
}

func (e *traceReplay) shape() shape {
	// Every piece plans the whole trace's span, so they end together.
	return shape{vus: e.preAllocated, maxVUs: e.maxVUs, duration: e.at(len(e.trace.Entries) - 1),
		iterations: int64(len(e.owned)), endsItself: true}
}

func (e *traceReplay) run(s *scenario) {
	turns := newSessionTurns(s, len(e.trace.Sessions))
	e.serve(s, func(f feed) { e.dispatch(s, f, turns) })
}

// dispatch starts each owned entry when it is due, or queues it behind its session's
// running turn. After the last one the scenario stops starting: what runs gets
// gracefulStop, and turns still waiting for their session start as it frees up until then.
func (e *traceReplay) dispatch(s *scenario, f feed, turns *sessionTurns) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for k, i := range e.owned {
		w := arrival{n: uint64(i), due: s.startAt.Add(e.at(i)), entry: trace.Ref{Trace: e.trace, Index: i}}
		if !e.sleepUntil(s, timer, w.due) {
			s.drop(e.countDue(s, k))
			return
		}
		sid := e.trace.Entries[i].Session
		if sid >= 0 {
			if turns.wait(sid, w) {
				continue
			}
			w.then = turns.follow[sid]
		}
		switch e.start(s, w, f) {
		case dropped:
			if sid >= 0 {
				turns.release(sid)
			}
		case stopped:
			s.drop(e.countDue(s, k))
			return
		}
	}
	turns.scheduleDone()
	s.stopStarting()
}

// countDue counts the owned entries due by now from the k-th on.
func (e *traceReplay) countDue(s *scenario, k int) int64 {
	now := time.Since(s.startAt)
	var n int64
	for _, i := range e.owned[k:] {
		if e.at(i) > now {
			break
		}
		n++
	}
	return n
}

// sessionTurns keeps each session's turns in order: while one runs, the session's
// later turns that fall due wait in its queue.
type sessionTurns struct {
	s      *scenario
	mu     sync.Mutex
	busy   []bool
	queued [][]arrival
	done   bool // the dispatcher has handed out every entry
	// follow[sid] gives the session's next waiting turn to the VU that ran its last one.
	follow []func() (arrival, bool)
}

func newSessionTurns(s *scenario, n int) *sessionTurns {
	t := &sessionTurns{s: s, busy: make([]bool, n), queued: make([][]arrival, n), follow: make([]func() (arrival, bool), n)}
	for sid := range t.follow {
		t.follow[sid] = func() (arrival, bool) { return t.next(int32(sid)) }
	}
	return t
}

// wait queues w when its session has a turn running and reports whether it did;
// otherwise it marks the session busy with w.
func (t *sessionTurns) wait(sid int32, w arrival) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.busy[sid] {
		w.then = t.follow[sid]
		t.queued[sid] = append(t.queued[sid], w)
		return true
	}
	t.busy[sid] = true
	return false
}

// release frees a session whose turn never started.
func (t *sessionTurns) release(sid int32) {
	t.mu.Lock()
	t.busy[sid] = false
	t.mu.Unlock()
}

func (t *sessionTurns) scheduleDone() {
	t.mu.Lock()
	t.done = true
	t.mu.Unlock()
}

// next hands out the session's next waiting turn, or frees the session. Once the run
// was stopped, or gracefulStop ran out, the waiting turns are dropped instead; the end
// of the schedule alone does not drop them.
func (t *sessionTurns) next(sid int32) (arrival, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	q := t.queued[sid]
	if len(q) == 0 {
		t.busy[sid] = false
		return arrival{}, false
	}
	s := t.s
	if s.iterCtx.Err() != nil || s.run.isStopped() || s.startCtx.Err() != nil && !t.done {
		s.drop(int64(len(q)))
		t.queued[sid], t.busy[sid] = nil, false
		return arrival{}, false
	}
	t.queued[sid] = q[1:]
	return q[0], true
}

// traceCache is the trace a scenario config last loaded, with its path and format.
type traceCache struct {
	mu           sync.Mutex
	path, format string
	trace        *trace.Trace
	err          error
}

// load reads the trace, or returns the one read before for the same path and format.
// A nil cache (a config built in Go, not decoded) reads it each time.
func (c *traceCache) load(path, format string) (*trace.Trace, error) {
	if c == nil {
		return trace.Load(path, format)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.trace == nil && c.err == nil || c.path != path || c.format != format {
		c.path, c.format = path, format
		c.trace, c.err = trace.Load(path, format)
	}
	return c.trace, c.err
}
