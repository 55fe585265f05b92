package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/omnik-dev/omnik/js"
)

// writeTrace writes lines as a trace file and returns its path, quoted for JSON options.
func writeTrace(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%q", path)
}

// begun is one iteration as the engine began it: its entry, intended offset, actual
// start offset and VU.
type begun struct {
	index            int
	intended, actual time.Duration
	vu               uint64
}

// startLog records the iterations a trace replay starts.
type startLog struct {
	mu  sync.Mutex
	its []begun
}

func (l *startLog) wrap(fn func(context.Context, uint64, *js.Iteration) error) func(context.Context, uint64, *js.Iteration) error {
	return func(ctx context.Context, vu uint64, it *js.Iteration) error {
		obj := it.TraceEntry.Object()
		l.mu.Lock()
		l.its = append(l.its, begun{obj["index"].(int), it.IntendedStart.Sub(it.Scenario.StartTime), time.Since(it.Scenario.StartTime), vu})
		l.mu.Unlock()
		return fn(ctx, vu, it)
	}
}

func (l *startLog) sorted() []begun {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := slices.Clone(l.its)
	slices.SortFunc(out, func(a, b begun) int { return a.index - b.index })
	return out
}

// Entries start at their offsets divided by speed, each with its entry, and the
// scenario ends with its last entry, not later.
func TestTraceReplayStartsEntriesAtTheirOffsets(t *testing.T) {
	t.Parallel()
	path := writeTrace(t, `{"offset_ms": 0}`, `{"offset_ms": 25, "body": {"n": 2}}`, `{"offset_ms": 10}`, `{"offset_ms": 25}`, `{"offset_ms": 100.5}`)
	ms := float64(time.Millisecond)
	for _, speed := range []float64{1, 2, 0.5} {
		t.Run(fmt.Sprint("speed ", speed), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				var log startLog
				r, rec := newRun(t, `{"scenarios": {"s": {"executor": "trace-replay", "trace": `+path+`, "speed": `+fmt.Sprint(speed)+`, "preAllocatedVUs": 2}}}`,
					fakeScript(log.wrap(sleeper(time.Millisecond))))
				if p := r.Plan().Scenarios[0]; p.Iterations != 5 || p.Duration.D() != time.Duration(100.5*ms/speed) {
					t.Errorf("plan: %d iterations over %v", p.Iterations, p.Duration)
				}
				res := r.Run(context.Background())
				if res.IterationsCompleted != 5 || res.IterationsDropped != 0 || res.Duration != time.Duration(100.5*ms/speed)+time.Millisecond {
					t.Errorf("result %+v", res)
				}
				// Stable order: the two entries at 25 ms keep their lines' order.
				want := []float64{0, 10, 25, 25, 100.5}
				for i, it := range log.sorted() {
					if it.index != i || it.intended != time.Duration(want[i]*ms/speed) || it.actual != it.intended {
						t.Errorf("entry %d: %+v, want it started at %v", i, it, time.Duration(want[i]*ms/speed))
					}
				}
				for _, lag := range rec.values("schedule_lag") {
					if lag != 0 {
						t.Errorf("schedule_lag %v ms, want 0", lag)
					}
				}
			})
		})
	}
}

// A turn due while its session's previous turn runs waits for it and runs on the same
// VU; the wait is schedule lag. Turns still waiting when the last entry is due run too.
func TestTraceReplaySessionTurnsNeverOverlap(t *testing.T) {
	t.Parallel()
	path := writeTrace(t,
		`{"offset_ms": 0, "session": "a"}`, `{"offset_ms": 5}`, `{"offset_ms": 10, "session": "a"}`,
		`{"offset_ms": 12, "session": "b"}`, `{"offset_ms": 20, "session": "a"}`)
	synctest.Test(t, func(t *testing.T) {
		var log startLog
		r, rec := newRun(t, `{"scenarios": {"s": {"executor": "trace-replay", "trace": `+path+`, "preAllocatedVUs": 3}}}`,
			fakeScript(log.wrap(sleeper(30*time.Millisecond))))
		res := r.Run(context.Background())
		if res.IterationsCompleted != 5 || res.IterationsDropped != 0 || res.IterationsInterrupted != 0 {
			t.Errorf("result %+v", res)
		}
		its := log.sorted()
		ms := time.Millisecond
		// Session a: due 0, 10, 20; each turn takes 30 ms, so they start at 0, 30, 60.
		wantStart := []time.Duration{0, 5 * ms, 30 * ms, 12 * ms, 60 * ms}
		for i, it := range its {
			if it.actual != wantStart[i] {
				t.Errorf("entry %d started at %v, want %v", i, it.actual, wantStart[i])
			}
		}
		if its[0].vu != its[2].vu || its[2].vu != its[4].vu {
			t.Errorf("session a ran on VUs %d, %d, %d; want one VU", its[0].vu, its[2].vu, its[4].vu)
		}
		if lags := rec.values("schedule_lag"); fmt.Sprint(sortedCopy(lags)) != fmt.Sprint([]float64{0, 0, 0, 20, 40}) {
			t.Errorf("schedule_lag %v, want 0, 0, 0 and session a's waits of 20 and 40 ms", lags)
		}
	})
}

func sortedCopy(xs []float64) []float64 { out := slices.Clone(xs); slices.Sort(out); return out }

// Dropped and interrupted work is counted as the arrival-rate executors count it: an
// entry finding no free VU is dropped, and once gracefulStop after the last entry runs
// out, the running turn is interrupted and the turn waiting behind it dropped.
func TestTraceReplayAccounting(t *testing.T) {
	t.Parallel()
	t.Run("no free VU", func(t *testing.T) {
		t.Parallel()
		lines := make([]string, 10)
		for i := range lines {
			lines[i] = fmt.Sprintf(`{"offset_ms": %d}`, 10*i)
		}
		path := writeTrace(t, lines...)
		synctest.Test(t, func(t *testing.T) {
			logs := &syncBuffer{}
			r, rec := newRun(t, `{"scenarios": {"s": {"executor": "trace-replay", "trace": `+path+`, "preAllocatedVUs": 1, "maxVUs": 1}}}`,
				fakeScript(sleeper(25*time.Millisecond)), WithLogger(slogTo(logs)))
			res := r.Run(context.Background())
			// Entries at 0, 30, 60, 90 ms find the VU free.
			if res.IterationsCompleted != 4 || res.IterationsDropped != 6 || rec.sum("dropped_iterations") != 6 {
				t.Errorf("result %+v, dropped_iterations %v", res, rec.sum("dropped_iterations"))
			}
			if !strings.Contains(logs.String(), "insufficient VUs") {
				t.Errorf("no insufficient-VUs warning:\n%s", logs)
			}
		})
	})
	t.Run("gracefulStop", func(t *testing.T) {
		t.Parallel()
		path := writeTrace(t, `{"offset_ms": 0, "session": 1}`, `{"offset_ms": 10, "session": 1}`)
		synctest.Test(t, func(t *testing.T) {
			r, _ := newRun(t, `{"scenarios": {"s": {"executor": "trace-replay", "trace": `+path+`, "preAllocatedVUs": 2, "gracefulStop": "100ms"}}}`,
				fakeScript(sleeper(time.Second)))
			res := r.Run(context.Background())
			if res.IterationsInterrupted != 1 || res.IterationsDropped != 1 || res.IterationsCompleted != 0 || res.Duration != 110*time.Millisecond {
				t.Errorf("result %+v, want turn 1 cut at 10 ms + gracefulStop and turn 2 dropped", res)
			}
		})
	})
	t.Run("stopped", func(t *testing.T) {
		t.Parallel()
		path := writeTrace(t, `{"offset_ms": 0, "session": "a"}`, `{"offset_ms": 10, "session": "a"}`, `{"offset_ms": 40}`, `{"offset_ms": 1000}`)
		synctest.Test(t, func(t *testing.T) {
			r, _ := newRun(t, `{"scenarios": {"s": {"executor": "trace-replay", "trace": `+path+`, "preAllocatedVUs": 2}}}`,
				fakeScript(sleeper(50*time.Millisecond)))
			time.AfterFunc(45*time.Millisecond, r.Stop)
			res := r.Run(context.Background())
			// At 45 ms: turn a1 runs (it completes), a2 waits (dropped), the 40 ms entry runs,
			// the 1 s one is never due (not counted).
			if res.IterationsCompleted != 2 || res.IterationsDropped != 1 {
				t.Errorf("result %+v", res)
			}
		})
	})
}

// Pieces of a distributed run replay disjoint entries that together are the trace, and
// each session stays whole in one piece.
func TestTraceReplayPiecesKeepSessionsWhole(t *testing.T) {
	t.Parallel()
	var lines []string
	for i := range 12 {
		lines = append(lines, fmt.Sprintf(`{"offset_ms": %d, "session": "s%d"}`, i, i%3))
	}
	lines = append(lines, `{"offset_ms": 20}`, `{"offset_ms": 21}`)
	path := writeTrace(t, lines...)
	o, _, err := ParseOptions("test", []byte(`{"scenarios": {"s": {"executor": "trace-replay", "trace": `+path+`, "preAllocatedVUs": 1}}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	sessionOf := map[string]int{}
	for k := range 2 {
		seg, err := IndexedSegment(int64(k), 2)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := NewPlan(o, seg)
		if err != nil {
			t.Fatal(err)
		}
		e := plan.Scenarios[0].exec.(*traceReplay)
		for _, i := range e.owned {
			if seen[i] {
				t.Errorf("entry %d replayed by two pieces", i)
			}
			seen[i] = true
			if sid := e.trace.Entries[i].Session; sid >= 0 {
				name := e.trace.Sessions[sid]
				if p, ok := sessionOf[name]; ok && p != k {
					t.Errorf("session %s split across pieces", name)
				}
				sessionOf[name] = k
			}
		}
		if plan.Scenarios[0].Iterations != int64(len(e.owned)) || plan.Scenarios[0].Duration.D() != 21*time.Millisecond {
			t.Errorf("piece %d plans %d iterations over %v", k, plan.Scenarios[0].Iterations, plan.Scenarios[0].Duration)
		}
	}
	if len(seen) != 14 {
		t.Errorf("%d of 14 entries replayed", len(seen))
	}
}

func TestTraceReplayOptionErrors(t *testing.T) {
	t.Parallel()
	good := writeTrace(t, `{"offset_ms": 0}`, `{"offset_ms": 1000}`)
	bad := writeTrace(t, `{"offset_ms": 0}`, `{"offset_ms": -5}`)
	tests := []struct{ name, scenario, want string }{
		{"no trace", `"preAllocatedVUs": 1`, `"trace" is required`},
		{"no VUs", `"trace": ` + good, `"preAllocatedVUs" is required`},
		{"zero speed", `"trace": ` + good + `, "preAllocatedVUs": 1, "speed": 0`, `"speed" must be a positive number, got 0`},
		{"too slow", `"trace": ` + good + `, "preAllocatedVUs": 1, "speed": 1e-10`, `the trace would last`},
		{"rate key", `"trace": ` + good + `, "preAllocatedVUs": 1, "rate": 5`, `unknown key "rate"`},
		{"bad format", `"trace": ` + good + `, "preAllocatedVUs": 1, "format": "csv"`, `format "csv"`},
		{"bad line", `"trace": ` + bad + `, "preAllocatedVUs": 1`, `trace.jsonl:2: "offset_ms" -5 ms`},
		{"missing file", `"trace": "/nonexistent/t.jsonl", "preAllocatedVUs": 1`, `trace /nonexistent/t.jsonl: open`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o, _, err := ParseOptions("test", []byte(`{"scenarios": {"r": {"executor": "trace-replay", `+tt.scenario+`}}}`), nil)
			if err == nil {
				_, err = Consolidate(nil, o)
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), `scenario "r" (trace-replay)`) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// The plans built from one decoded config share one read of the trace: once the
// options are consolidated the file is no longer needed.
func TestTraceIsReadOncePerConfig(t *testing.T) {
	t.Parallel()
	path := writeTrace(t, `{"offset_ms": 0}`, `{"offset_ms": 5}`)
	o, _, err := ParseOptions("test", []byte(`{"scenarios": {"s": {"executor": "trace-replay", "trace": `+path+`, "preAllocatedVUs": 1}}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if o, err = Consolidate(nil, o); err != nil {
		t.Fatal(err)
	}
	var file string
	_ = json.Unmarshal([]byte(path), &file)
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	r, err := New(fakeScript(sleeper(0)), o)
	if err != nil {
		t.Fatal(err)
	}
	if res := r.Run(context.Background()); res.IterationsCompleted != 2 {
		t.Errorf("result %+v", res)
	}
}
