package engine

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/omnik-dev/omnik/js"
)

// An arrival-rate scenario lasts its whole duration, not just until its last arrival, so
// its rates are over that duration (k6: rate 2 for 2 s is 4 iterations in 2 s, 2/s). An
// iteration-bounded Poisson run ends with its last iteration, as vllm bench serve's does.
func TestArrivalRateScenariosLastTheirDuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, scenario string
		iterations     int64
		lasts          time.Duration
	}{
		{"constant", `{"executor": "constant-arrival-rate", "rate": 2, "duration": "2s", "preAllocatedVUs": 1}`, 4, 2 * time.Second},
		{"ramping", `{"executor": "ramping-arrival-rate", "startRate": 2, "preAllocatedVUs": 1, "stages": [{"duration": "2s", "target": 2}]}`, 4, 2 * time.Second},
		{"poisson by duration", `{"executor": "poisson-arrival-rate", "rate": 2, "duration": "2s", "seed": 1, "maxVUs": 1}`, 0, 2 * time.Second},
		// Count-bounded: the last of 4 arrivals at 2/s is due at exactly 2 s, and runs 1 ms.
		{"poisson by iterations", `{"executor": "poisson-arrival-rate", "rate": 2, "iterations": 4, "seed": 1, "maxVUs": 1}`, 4, 2*time.Second + time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				r, _ := newRun(t, `{"scenarios": {"s": `+tt.scenario+`}}`, fakeScript(sleeper(time.Millisecond)))
				res := r.Run(context.Background())
				sc := res.Scenarios[0]
				if sc.Elapsed != tt.lasts || res.Duration != tt.lasts || sc.ScheduleEnded.Sub(sc.Started) > tt.lasts {
					t.Errorf("scenario ran %v (run %v, schedule ended at %v), want %v", sc.Elapsed, res.Duration, sc.ScheduleEnded.Sub(sc.Started), tt.lasts)
				}
				if tt.iterations > 0 && res.IterationsCompleted != tt.iterations || res.IterationsDropped != 0 {
					t.Errorf("result %+v, want %d iterations", res, tt.iterations)
				}
			})
		})
	}
}

// fixedArrivals runs a given schedule on an arrival-rate executor's VUs.
type fixedArrivals struct {
	arrivalPool
	offsets []time.Duration
}

func (e *fixedArrivals) shape() shape { return shape{} }

func (e *fixedArrivals) run(s *scenario) {
	i := 0
	e.arrivalPool.run(s, func() (time.Duration, bool) {
		if i == len(e.offsets) {
			return 0, false
		}
		i++
		return e.offsets[i-1], true
	})
}

// An arrival whose timer fires as the duration ends, as a loaded machine wakes the
// dispatcher late, is started or dropped, never lost, whichever of the two comes first.
func TestAnArrivalDueAsTheDurationEndsIsStartedOrDropped(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		for range 20 {
			r, rec := newRun(t, `{"scenarios": {"s": {"executor": "constant-arrival-rate", "rate": 1, "duration": "50ms", "preAllocatedVUs": 2}}}`,
				fakeScript(sleeper(time.Millisecond)))
			sc := &r.plan.Scenarios[0]
			sc.exec = &fixedArrivals{arrivalPool: sc.exec.(*constantArrivalRate).arrivalPool, offsets: []time.Duration{0, 50 * time.Millisecond}}
			res := r.Run(context.Background())
			if res.IterationsCompleted+res.IterationsDropped != 2 || rec.sum("dropped_iterations") != float64(res.IterationsDropped) {
				t.Fatalf("result %+v, dropped_iterations %v: want both arrivals started or dropped", res, rec.sum("dropped_iterations"))
			}
		}
	})
}

// A scenario's clock starts once its VUs are ready. Here another scenario's growth took
// the VUs planned for it, so it initialises its own (slowly, like a big script): its
// schedule and duration still run in full, none of it dropped or late.
func TestScenarioStartsWhenItsVUsAreReady(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		script := fakeScript(func(ctx context.Context, _ uint64, it *js.Iteration) error {
			d := time.Millisecond
			if it.Scenario.Name == "greedy" {
				d = time.Second
			}
			return sleeper(d)(ctx, 0, it)
		})
		newVU := script.NewVU
		script.NewVU = func(ctx context.Context, id uint64) (VU, error) {
			if id > 3 { // beyond the plan's 3
				time.Sleep(100 * time.Millisecond)
			}
			return newVU(ctx, id)
		}
		r, rec := newRun(t, `{"scenarios": {
			"greedy": {"executor": "constant-arrival-rate", "rate": 100, "duration": "1s", "preAllocatedVUs": 1, "maxVUs": 3},
			"late": {"executor": "constant-arrival-rate", "rate": 100, "duration": "100ms", "preAllocatedVUs": 2, "startTime": "50ms"}}}`, script)
		res := r.Run(context.Background())
		late := res.Scenarios[1]
		if late.Name != "late" || late.Completed != 10 || late.Dropped != 0 || late.Elapsed != 100*time.Millisecond {
			t.Errorf("late scenario %+v, want 10 iterations on time in 100 ms", late)
		}
		if r.pool.initialized.Load() != 5 {
			t.Errorf("%d VUs initialised, want 5: the premise is that late had to make its own", r.pool.initialized.Load())
		}
		for _, lag := range rec.values("schedule_lag") {
			if lag != 0 {
				t.Fatalf("schedule_lag %v ms, want 0: the schedule starts once the VUs are ready", lag)
			}
		}
	})
}
