package engine

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/omnik-dev/omnik/js"
)

// events records the lifecycle in order.
type events struct {
	mu   sync.Mutex
	list []string
}

func (e *events) add(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if n := len(e.list); n == 0 || e.list[n-1] != s { // collapse repeated iterations
		e.list = append(e.list, s)
	}
}

func (e *events) String() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return strings.Join(e.list, ",")
}

// lifecycleScript records init, setup, iterations and teardown, and checks that setup's
// data reaches iterations and teardown.
func lifecycleScript(ev *events, iterate func(context.Context, uint64, *js.Iteration) error) Script {
	s := fakeScript(func(ctx context.Context, vu uint64, it *js.Iteration) error {
		if string(it.SetupData) != `{"token":"t"}` {
			ev.add("bad setup data")
		}
		ev.add("iter")
		return iterate(ctx, vu, it)
	})
	newVU := s.NewVU
	s.NewVU = func(ctx context.Context, id uint64) (VU, error) { ev.add("init"); return newVU(ctx, id) }
	s.Setup = func(context.Context) (js.SetupData, error) {
		ev.add("setup")
		return json.RawMessage(`{"token":"t"}`), nil
	}
	s.Teardown = func(_ context.Context, data js.SetupData) error { ev.add("teardown " + string(data)); return nil }
	return s
}

func TestLifecycleOrder(t *testing.T) {
	t.Parallel()
	ev := &events{}
	r, _ := newRun(t, `{"vus": 2, "iterations": 5}`, lifecycleScript(ev, sleeper(0)))
	res := r.Run(context.Background())
	if got, want := ev.String(), `init,setup,iter,teardown {"token":"t"}`; got != want {
		t.Errorf("events %s, want %s", got, want)
	}
	if ExitCodeFor(res, true, nil) != ExitOK || res.IterationsCompleted != 5 {
		t.Errorf("result %+v", res)
	}
	if res2 := r.Run(context.Background()); res2.Err == nil {
		t.Error("a second Run must fail")
	}
}

// test.abort interrupts running iterations at once, still runs teardown, exits 108.
func TestAbortStopsAtOnceAndRunsTeardown(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ev := &events{}
		var r *Run
		var once sync.Once
		r, _ = newRun(t, `{"vus": 3, "duration": "10s"}`, lifecycleScript(ev, func(ctx context.Context, vu uint64, it *js.Iteration) error {
			if vu == 1 {
				once.Do(func() { r.Abort("enough") })
			}
			return sleeper(time.Hour)(ctx, vu, it)
		}))
		res := r.Run(context.Background())
		if ExitCodeFor(res, true, nil) != ExitAborted || res.AbortReason != "enough" || !res.Interrupted {
			t.Errorf("result %+v", res)
		}
		if !strings.HasSuffix(ev.String(), "teardown {\"token\":\"t\"}") {
			t.Errorf("events %s", ev)
		}
		// At once: no gracefulStop, no time at all on the fake clock.
		if res.Duration != 0 {
			t.Errorf("abort took %v", res.Duration)
		}
	})
}

func TestFailKeepsRunningAndExits110(t *testing.T) {
	t.Parallel()
	var r *Run
	r, _ = newRun(t, `{"iterations": 4}`, fakeScript(func(context.Context, uint64, *js.Iteration) error {
		r.Fail("bad output")
		return nil
	}))
	res := r.Run(context.Background())
	if ExitCodeFor(res, true, nil) != ExitFailed || !res.Failed || res.FailReason != "bad output" || res.IterationsCompleted != 4 {
		t.Errorf("result %+v", res)
	}
}

// Stop: no new iterations, running ones finish within gracefulStop, teardown runs, 105.
func TestStopIsGraceful(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ev := &events{}
		r, _ := newRun(t, `{"scenarios": {
			"now": {"executor": "constant-vus", "vus": 2, "duration": "10s"},
			"later": {"executor": "constant-vus", "vus": 2, "duration": "1s", "startTime": "5s"}}}`,
			lifecycleScript(ev, sleeper(40*time.Millisecond)))
		time.AfterFunc(100*time.Millisecond, r.Stop)
		res := r.Run(context.Background())
		// Each VU's third iteration, running at the stop, ends at 120 ms.
		if ExitCodeFor(res, true, nil) != ExitInterrupted || !res.Interrupted || res.IterationsInterrupted != 0 || res.IterationsCompleted != 6 {
			t.Errorf("result %+v", res)
		}
		if !strings.HasSuffix(ev.String(), "teardown {\"token\":\"t\"}") {
			t.Errorf("events %s", ev)
		}
		if res.Duration != 120*time.Millisecond || res.Scenarios[1].State != "done" || res.Scenarios[1].Completed != 0 {
			t.Errorf("took %v; later scenario %+v", res.Duration, res.Scenarios[1])
		}
	})
}

// Cancelling the context is a hard stop: iterations are interrupted and teardown skipped.
func TestCancelIsHard(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ev := &events{}
		r, _ := newRun(t, `{"vus": 2, "duration": "10s"}`, lifecycleScript(ev, sleeper(time.Hour)))
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		res := r.Run(ctx)
		if ExitCodeFor(res, true, nil) != ExitInterrupted || res.IterationsInterrupted != 2 || strings.Contains(ev.String(), "teardown") || res.Duration != 100*time.Millisecond {
			t.Errorf("result %+v, events %s", res, ev)
		}
	})
}

func TestGracefulStop(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, grace            string
		completed, interrupted int64
	}{
		{"iteration outlives gracefulStop", "50ms", 0, 2},
		{"iteration finishes within gracefulStop", "500ms", 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				r, _ := newRun(t, `{"scenarios": {"s": {"executor": "constant-vus", "vus": 2, "duration": "50ms", "gracefulStop": "`+tt.grace+`"}}}`,
					fakeScript(sleeper(200*time.Millisecond)))
				res := r.Run(context.Background())
				if res.IterationsCompleted != tt.completed || res.IterationsInterrupted != tt.interrupted || ExitCodeFor(res, true, nil) != ExitOK {
					t.Errorf("result %+v", res)
				}
			})
		})
	}
}

func TestScriptExceptions(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	tests := []struct {
		name  string
		edit  func(*Script)
		opts  string
		want  string
		iters int64
	}{
		{"init", func(s *Script) {
			s.NewVU = func(context.Context, uint64) (VU, error) { return nil, boom }
		}, `{}`, "initialising VU 1: boom", 0},
		{"setup", func(s *Script) {
			s.Setup = func(context.Context) (js.SetupData, error) { return nil, boom }
		}, `{}`, "setup(): boom", 0},
		{"setup timeout", func(s *Script) {
			s.Setup = func(ctx context.Context) (js.SetupData, error) { <-ctx.Done(); return nil, ctx.Err() }
		}, `{"setupTimeout": "20ms"}`, "setup() did not finish within setupTimeout (20ms)", 0},
		{"teardown", func(s *Script) {
			s.Teardown = func(context.Context, js.SetupData) error { return boom }
		}, `{}`, "teardown(): boom", 1},
		{"teardown timeout", func(s *Script) {
			s.Teardown = func(ctx context.Context, _ js.SetupData) error { <-ctx.Done(); return ctx.Err() }
		}, `{"teardownTimeout": "20ms"}`, "teardown() did not finish within teardownTimeout (20ms)", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := fakeScript(sleeper(0))
			tt.edit(&s)
			r, _ := newRun(t, tt.opts, s)
			res := r.Run(context.Background())
			if ExitCodeFor(res, true, nil) != ExitScriptException || res.Err == nil || res.Err.Error() != tt.want || res.IterationsCompleted != tt.iters {
				t.Errorf("result %+v, want error %q", res, tt.want)
			}
		})
	}
}

func TestOnTickAbortsWithThresholdExitCode(t *testing.T) {
	t.Parallel()
	var ticks atomic.Int64
	ev := &events{}
	r, _ := newRun(t, `{"vus": 1, "duration": "10s"}`, lifecycleScript(ev, sleeper(time.Hour)),
		OnTick(20*time.Millisecond, func(elapsed time.Duration) (bool, string) {
			return ticks.Add(1) == 3, "p(99)<100 failed"
		}))
	res := r.Run(context.Background())
	if ExitCodeFor(res, true, nil) != ExitThresholdsFailed || res.AbortReason != "p(99)<100 failed" || !strings.Contains(ev.String(), "teardown") {
		t.Errorf("result %+v, events %s", res, ev)
	}
}

func TestStatsGaugesAndPoolReuse(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var r *Run
		var mu sync.Mutex
		var seen []js.InstanceStats
		r, rec := newRun(t, `{"scenarios": {
			"a": {"executor": "per-vu-iterations", "vus": 2, "iterations": 2, "maxDuration": "50ms", "gracefulStop": "0s"},
			"b": {"executor": "per-vu-iterations", "vus": 2, "iterations": 2, "startTime": "100ms"}}, "tags": {"env": "ci"}}`,
			fakeScript(func(context.Context, uint64, *js.Iteration) error {
				mu.Lock()
				seen = append(seen, r.Stats())
				mu.Unlock()
				time.Sleep(5 * time.Millisecond)
				return nil
			}), OnTick(20*time.Millisecond, nil))
		res := r.Run(context.Background())
		if res.IterationsCompleted != 8 || r.pool.initialized.Load() != 2 {
			t.Errorf("result %+v; %d VUs initialised, want 2 reused by both scenarios", res, r.pool.initialized.Load())
		}
		last := seen[len(seen)-1]
		// b's second iterations start at 105 ms, after six iterations ended.
		if last.VUsInitialized != 2 || last.VUsActive != 2 || last.IterationsCompleted != 6 || last.TestRunDuration != 105*time.Millisecond {
			t.Errorf("stats %+v", last)
		}
		vus := rec.values("vus")
		if len(vus) < 3 || vus[len(vus)-1] != 0 {
			t.Errorf("vus gauge %v", vus)
		}
		rec.mu.Lock()
		defer rec.mu.Unlock()
		for _, s := range rec.samples {
			if v, _ := s.Tags.Get("env"); v != "ci" {
				t.Errorf("sample %s lacks the global tag: %v", s.Metric.Name, s.Tags.Map())
			}
		}
	})
}

func TestScenarioTagsAndStartTime(t *testing.T) {
	t.Parallel()
	var info *js.Scenario
	var first time.Time
	var once sync.Once
	begin := time.Now()
	r, rec := newRun(t, `{"tags": {"env": "ci"}, "scenarios": {"chat": {"executor": "constant-arrival-rate", "rate": 5, "timeUnit": "100ms",
		"duration": "100ms", "preAllocatedVUs": 1, "startTime": "100ms", "exec": "chat", "env": {"K": "v"}, "tags": {"kind": "text"}}}}`,
		fakeScript(func(_ context.Context, _ uint64, it *js.Iteration) error {
			once.Do(func() { info, first = it.Scenario, time.Now() })
			return nil
		}))
	r.Run(context.Background())
	if first.Sub(begin) < 100*time.Millisecond {
		t.Errorf("first iteration %v after the start, want ≥ startTime", first.Sub(begin))
	}
	if info.Name != "chat" || info.Exec != "chat" || info.Env["K"] != "v" || info.Tags["kind"] != "text" || info.Tags["scenario"] != "chat" || info.Tags["env"] != "ci" {
		t.Errorf("scenario %+v", info)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, s := range rec.samples {
		if s.Metric.Name == "schedule_lag" && s.Tags.Key() != "env=ci,kind=text,scenario=chat" {
			t.Errorf("schedule_lag tags %s", s.Tags.Key())
		}
	}
}

func TestExitCodeOf(t *testing.T) {
	t.Parallel()
	wrapped := errors.Join(errors.New("context"), &ExitError{Code: ExitAborted, Err: errors.New("x")})
	for err, want := range map[error]ExitCode{nil: ExitOK, errors.New("x"): 1, wrapped: ExitAborted, &OptionsError{Msg: "m"}: ExitInvalidConfig} {
		if got := ExitCodeOf(err); got != want {
			t.Errorf("ExitCodeOf(%v) = %d, want %d", err, got, want)
		}
	}
}

func TestMinIterationDuration(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		r, _ := newRun(t, `{"iterations": 3, "minIterationDuration": "50ms"}`, fakeScript(sleeper(0)))
		res := r.Run(context.Background())
		if res.IterationsCompleted != 3 || res.Duration != 150*time.Millisecond {
			t.Errorf("result %+v", res)
		}
	})
}

// Result.Duration is the scenarios' time, which rates divide by: not setup's, not
// teardown's.
func TestResultDurationIsTheScenariosTime(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := fakeScript(sleeper(10 * time.Millisecond))
		s.Setup = func(context.Context) (js.SetupData, error) { time.Sleep(time.Second); return nil, nil }
		s.Teardown = func(context.Context, js.SetupData) error { time.Sleep(time.Second); return nil }
		r, _ := newRun(t, `{"iterations": 1}`, s)
		if res := r.Run(context.Background()); res.Duration != 10*time.Millisecond {
			t.Errorf("duration %v, want the 10 ms of the one iteration", res.Duration)
		}
	})
}

// WithStartAt holds the scenarios, not setup, until its time; a time already past starts
// at once; a stop while holding starts nothing.
func TestStartAtHoldsTheScenariosUntilItsTime(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		start := time.Now().Add(90 * time.Second)
		var first time.Time
		var once sync.Once
		r, _ := newRun(t, `{"vus": 1, "iterations": 1}`, fakeScript(func(context.Context, uint64, *js.Iteration) error {
			once.Do(func() { first = time.Now() })
			return nil
		}), WithStartAt(start))
		r.Run(context.Background())
		if !first.Equal(start) {
			t.Errorf("first iteration at %v, want the start-at time %v", first, start)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		began := time.Now()
		var first time.Time
		r, _ := newRun(t, `{"vus": 1, "iterations": 1}`, fakeScript(func(context.Context, uint64, *js.Iteration) error {
			first = time.Now()
			return nil
		}), WithStartAt(began.Add(-time.Minute)))
		r.Run(context.Background())
		if !first.Equal(began) {
			t.Errorf("a past start-at waited until %v", first)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		ran := false
		r, _ := newRun(t, `{"vus": 1, "iterations": 1}`, fakeScript(func(context.Context, uint64, *js.Iteration) error {
			ran = true
			return nil
		}), WithStartAt(time.Now().Add(time.Hour)))
		time.AfterFunc(time.Minute, r.Stop)
		res := r.Run(context.Background())
		if ran || res.Duration != 0 {
			t.Errorf("stopped while holding: ran %v, duration %v", ran, res.Duration)
		}
	})
}

// Each tick sends the client's load as it was read: CPU share as is, waits and lag in
// milliseconds, and no client_cpu or client_cpu_wait where the platform cannot say.
func TestTicksSendTheClientsLoad(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name      string
		load      ClientLoad
		cpu, wait []float64
	}{
		{"all read", ClientLoad{CPU: 0.5, CPUOK: true, Wait: 3 * time.Millisecond, WaitOK: true, Lag: 41 * time.Millisecond}, []float64{0.5}, []float64{3}},
		{"no process clock", ClientLoad{Lag: 41 * time.Millisecond}, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var reads atomic.Int64
				sampler := func() ClientLoad { reads.Add(1); return c.load }
				r, rec := newRun(t, `{"scenarios": {"a": {"executor": "constant-vus", "vus": 1, "duration": "105ms"}}}`,
					fakeScript(func(context.Context, uint64, *js.Iteration) error { time.Sleep(10 * time.Millisecond); return nil }),
					OnTick(20*time.Millisecond, nil), WithClientSampler(sampler))
				r.Run(context.Background())
				n := int(reads.Load())
				if n != 5 {
					t.Fatalf("the sampler was read %d times over 105 ms of 20 ms ticks, want 5", n)
				}
				if lag := rec.values("client_lag"); len(lag) != n || lag[0] != 41 {
					t.Errorf("client_lag %v, want 41 ms each tick", lag)
				}
				for name, want := range map[string][]float64{"client_cpu": c.cpu, "client_cpu_wait": c.wait} {
					got := rec.values(name)
					if len(want) == 0 && len(got) != 0 || len(want) > 0 && (len(got) != n || got[0] != want[0]) {
						t.Errorf("%s %v, want %v each tick", name, got, want)
					}
				}
			})
		})
	}
}

// The process's own sampler reads a share of its cores and a lag that is never negative.
func TestProcessSamplerReadsTheProcess(t *testing.T) {
	t.Parallel()
	r, rec := newRun(t, `{"scenarios": {"a": {"executor": "constant-vus", "vus": 1, "duration": "350ms"}}}`,
		fakeScript(sleeper(5*time.Millisecond)), OnTick(100*time.Millisecond, nil))
	r.Run(context.Background())
	lag := rec.values("client_lag")
	if len(lag) < 2 {
		t.Fatalf("%d client_lag samples over 350 ms of 100 ms ticks", len(lag))
	}
	for _, v := range lag {
		if v < 0 {
			t.Errorf("client_lag %v ms", v)
		}
	}
	for _, v := range rec.values("client_cpu") {
		if v < 0 || v > 1.5 { // a share; a little over 1 from the clocks' grain
			t.Errorf("client_cpu %v", v)
		}
	}
}
