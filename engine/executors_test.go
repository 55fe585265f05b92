package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/js"
)

func TestIterationExecutorsRunTheirIterations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, scenario string
		total          int64
		perVU          map[uint64]int64 // nil: not checked
	}{
		{"shared-iterations", `{"executor": "shared-iterations", "vus": 3, "iterations": 20}`, 20, nil},
		{"per-vu-iterations", `{"executor": "per-vu-iterations", "vus": 3, "iterations": 4}`, 12, map[uint64]int64{1: 4, 2: 4, 3: 4}},
		{"more VUs than iterations", `{"executor": "shared-iterations", "vus": 10, "iterations": 2}`, 2, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			perVU := map[uint64]int64{}
			seen := map[uint64]bool{}
			r, _ := newRun(t, `{"scenarios": {"s": `+tt.scenario+`}}`, fakeScript(func(_ context.Context, vu uint64, it *js.Iteration) error {
				mu.Lock()
				perVU[vu]++
				seen[it.InScenario] = true
				mu.Unlock()
				time.Sleep(time.Millisecond)
				return nil
			}))
			res := r.Run(context.Background())
			if res.IterationsCompleted != tt.total || res.IterationsDropped != 0 || ExitCodeFor(res, true, nil) != ExitOK || res.Interrupted {
				t.Errorf("result %+v", res)
			}
			if int64(len(seen)) != tt.total {
				t.Errorf("%d distinct InScenario numbers, want %d", len(seen), tt.total)
			}
			if tt.perVU != nil && fmt.Sprint(perVU) != fmt.Sprint(tt.perVU) {
				t.Errorf("per VU %v, want %v", perVU, tt.perVU)
			}
		})
	}
}

// Work left when maxDuration ends counts as dropped; an iteration cut by gracefulStop
// counts as interrupted; together with the completed ones they account for all.
func TestIterationExecutorsDropWorkLeftAtMaxDuration(t *testing.T) {
	t.Parallel()
	for _, sc := range []string{
		`{"executor": "shared-iterations", "vus": 2, "iterations": 100, "maxDuration": "100ms", "gracefulStop": "0s"}`,
		`{"executor": "per-vu-iterations", "vus": 2, "iterations": 50, "maxDuration": "100ms", "gracefulStop": "0s"}`,
	} {
		r, rec := newRun(t, `{"scenarios": {"s": `+sc+`}}`, fakeScript(sleeper(30*time.Millisecond)))
		res := r.Run(context.Background())
		if res.IterationsCompleted+res.IterationsInterrupted+res.IterationsDropped != 100 {
			t.Errorf("%s: result %+v does not add up to 100", sc, res)
		}
		within(t, "completed", float64(res.IterationsCompleted), 4, 8)
		if res.IterationsInterrupted != 2 {
			t.Errorf("interrupted = %d, want 2", res.IterationsInterrupted)
		}
		if got := rec.sum("dropped_iterations"); got != float64(res.IterationsDropped) {
			t.Errorf("dropped_iterations samples sum to %v, result says %d", got, res.IterationsDropped)
		}
	}
}

func TestConstantVUsKeepsVUsBusyForTheDuration(t *testing.T) {
	t.Parallel()
	var g gauge
	r, _ := newRun(t, `{"vus": 4, "duration": "300ms"}`, fakeScript(g.wrap(sleeper(10*time.Millisecond))))
	start := time.Now()
	res := r.Run(context.Background())
	within(t, "run time (s)", time.Since(start).Seconds(), 0.3, 0.5)
	if g.peak.Load() != 4 {
		t.Errorf("peak concurrency %d, want 4", g.peak.Load())
	}
	// 4 VUs × 300 ms / 10 ms = 120; allow for timer slack on a busy machine.
	within(t, "completed", float64(res.IterationsCompleted), 60, 124)
	if res.IterationsInterrupted != 0 {
		t.Errorf("interrupted %d", res.IterationsInterrupted)
	}
}

func TestRampingVUsFollowsStages(t *testing.T) {
	t.Parallel()
	var g gauge
	r, _ := newRun(t, `{"scenarios": {"ramp": {"executor": "ramping-vus", "startVUs": 0, "gracefulRampDown": "0s",
		"stages": [{"duration": "400ms", "target": 4}, {"duration": "200ms", "target": 4}, {"duration": "400ms", "target": 0}]}}}`,
		fakeScript(g.wrap(sleeper(5*time.Millisecond))))
	samples := map[time.Duration]int64{}
	var mu sync.Mutex
	done := make(chan Result)
	start := time.Now()
	go func() { done <- r.Run(context.Background()) }()
	for _, at := range []time.Duration{200, 500, 800} {
		time.Sleep(time.Until(start.Add(at * time.Millisecond)))
		mu.Lock()
		samples[at] = g.now.Load()
		mu.Unlock()
	}
	res := <-done
	// The line is at 2, 4 and 2 VUs at those times; allow one VU either side.
	for at, want := range map[time.Duration]int64{200: 2, 500: 4, 800: 2} {
		within(t, fmt.Sprintf("VUs at %dms", at), float64(samples[at]), float64(want-1), float64(want+1))
	}
	if g.peak.Load() != 4 || res.IterationsCompleted == 0 {
		t.Errorf("peak %d, result %+v", g.peak.Load(), res)
	}
}

// A ramped-down VU finishes its iteration within gracefulRampDown, then is interrupted.
func TestRampingVUsInterruptsAfterGracefulRampDown(t *testing.T) {
	t.Parallel()
	r, _ := newRun(t, `{"scenarios": {"ramp": {"executor": "ramping-vus", "startVUs": 2, "gracefulRampDown": "50ms", "gracefulStop": "0s",
		"stages": [{"duration": "100ms", "target": 2}, {"duration": "0s", "target": 1}, {"duration": "200ms", "target": 1}]}}}`,
		fakeScript(sleeper(time.Hour)))
	res := r.Run(context.Background())
	if res.IterationsInterrupted != 2 || res.IterationsCompleted != 0 {
		t.Errorf("result %+v", res)
	}
	if res.Duration > 500*time.Millisecond {
		t.Errorf("took %v", res.Duration)
	}
}

// arrivalRecorder records intended starts relative to the scenario start.
type arrivalRecorder struct {
	mu      sync.Mutex
	offsets []time.Duration
}

func (a *arrivalRecorder) wrap(fn func(context.Context, uint64, *js.Iteration) error) func(context.Context, uint64, *js.Iteration) error {
	return func(ctx context.Context, vu uint64, it *js.Iteration) error {
		a.mu.Lock()
		a.offsets = append(a.offsets, it.IntendedStart.Sub(it.Scenario.StartTime))
		a.mu.Unlock()
		return fn(ctx, vu, it)
	}
}

func TestArrivalRateExecutorsStartScheduledIterations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, scenario string
		want           int64
	}{
		// 100/s for 500 ms: due at 0, 10, …, 490 ms.
		{"constant", `{"executor": "constant-arrival-rate", "rate": 10, "timeUnit": "100ms", "duration": "500ms", "preAllocatedVUs": 5}`, 50},
		// 0 → 100/s over 400 ms: area 20.
		{"ramping", `{"executor": "ramping-arrival-rate", "startRate": 0, "preAllocatedVUs": 5, "stages": [{"duration": "400ms", "target": 100}]}`, 20},
		{"poisson", `{"executor": "poisson-arrival-rate", "rate": 200, "iterations": 60, "seed": 3, "maxVUs": 10}`, 60},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var arr arrivalRecorder
			r, rec := newRun(t, `{"scenarios": {"s": `+tt.scenario+`}}`, fakeScript(arr.wrap(sleeper(time.Millisecond))))
			res := r.Run(context.Background())
			// The number of arrivals is exact; on a starved machine (parallel -race
			// runs) a few may find no free VU, so completed + dropped must add up and
			// drops stay under a quarter.
			if res.IterationsCompleted+res.IterationsDropped != tt.want || res.IterationsDropped > tt.want/4 {
				t.Errorf("result %+v, want %d arrivals", res, tt.want)
			}
			lags := rec.values("schedule_lag")
			if int64(len(lags)) != res.IterationsCompleted {
				t.Errorf("%d schedule_lag samples for %d iterations", len(lags), res.IterationsCompleted)
			}
			arr.mu.Lock()
			defer arr.mu.Unlock()
			for i, off := range arr.offsets {
				if off < 0 || off > time.Second {
					t.Errorf("iteration %d intended at %v", i, off)
				}
			}
		})
	}
}

func TestRampingArrivalRateSpeedsUp(t *testing.T) {
	t.Parallel()
	var arr arrivalRecorder
	r, _ := newRun(t, `{"scenarios": {"s": {"executor": "ramping-arrival-rate", "startRate": 0, "preAllocatedVUs": 4,
		"stages": [{"duration": "400ms", "target": 200}]}}}`, fakeScript(arr.wrap(sleeper(0))))
	r.Run(context.Background())
	var early, late int
	for _, off := range arr.offsets {
		if off < 200*time.Millisecond {
			early++
		} else {
			late++
		}
	}
	// Area 0→200 ms is 10 arrivals, 200→400 ms is 30.
	if early < 8 || early > 12 || late < 27 || late > 32 {
		t.Errorf("early %d, late %d; want about 10 and 30", early, late)
	}
}

// The Poisson schedule over a fixed seed: intended gaps average 1/rate.
func TestPoissonArrivalRateSchedule(t *testing.T) {
	t.Parallel()
	var arr arrivalRecorder
	r, _ := newRun(t, `{"scenarios": {"s": {"executor": "poisson-arrival-rate", "rate": 100, "duration": "500ms", "seed": 11, "maxVUs": 8}}}`,
		fakeScript(arr.wrap(sleeper(time.Millisecond))))
	res := r.Run(context.Background())
	within(t, "arrivals in 500ms at 100/s", float64(res.IterationsCompleted+res.IterationsDropped), 30, 75)
	arr.mu.Lock()
	defer arr.mu.Unlock()
	if arr.offsets[0] != 0 {
		t.Errorf("first arrival at %v, want 0", arr.offsets[0])
	}
}

// rate "inf" makes every iteration due at once; maxVUs bounds concurrency and the rest
// queue, so schedule_lag grows by one iteration time per wave.
func TestPoissonInfiniteRateQueuesBehindMaxVUs(t *testing.T) {
	t.Parallel()
	var g gauge
	var arr arrivalRecorder
	r, rec := newRun(t, `{"scenarios": {"s": {"executor": "poisson-arrival-rate", "rate": "inf", "iterations": 20, "maxVUs": 5}}}`,
		fakeScript(arr.wrap(g.wrap(sleeper(20*time.Millisecond)))))
	res := r.Run(context.Background())
	if res.IterationsCompleted != 20 || res.IterationsDropped != 0 {
		t.Errorf("result %+v", res)
	}
	if g.peak.Load() != 5 {
		t.Errorf("peak concurrency %d, want 5", g.peak.Load())
	}
	for _, off := range arr.offsets {
		if off != 0 {
			t.Fatalf("intended offset %v, want 0", off)
		}
	}
	var maxLag float64
	for _, l := range rec.values("schedule_lag") {
		maxLag = max(maxLag, l)
	}
	within(t, "largest schedule_lag (ms)", maxLag, 55, 200)
}

// With one VU busy 50 ms and an arrival every 10 ms, drop mode drops and keeps the
// schedule; queue mode starts every arrival late and records how late.
func TestSaturationDropVersusQueue(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"drop", "queue"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			logs := &syncBuffer{}
			r, rec := newRun(t, `{"scenarios": {"s": {"executor": "constant-arrival-rate", "rate": 100, "duration": "300ms",
				"preAllocatedVUs": 1, "maxVUs": 1, "gracefulStop": "1s", "onSaturation": "`+mode+`"}}}`,
				fakeScript(sleeper(50*time.Millisecond)), WithLogger(slogTo(logs)))
			res := r.Run(context.Background())
			if total := res.IterationsCompleted + res.IterationsDropped + res.IterationsInterrupted; total != 30 {
				t.Errorf("result %+v: %d arrivals, want 30", res, total)
			}
			within(t, "completed", float64(res.IterationsCompleted), 5, 8)
			if got := rec.sum("dropped_iterations"); got != float64(res.IterationsDropped) || got < 20 {
				t.Errorf("dropped_iterations %v, result %d", got, res.IterationsDropped)
			}
			var maxLag float64
			for _, l := range rec.values("schedule_lag") {
				maxLag = max(maxLag, l)
			}
			if mode == "drop" && maxLag > 100 || mode == "queue" && maxLag < 150 {
				t.Errorf("largest schedule_lag %v ms", maxLag)
			}
			if n := countLines(logs.String(), "insufficient VUs"); n != 1 {
				t.Errorf("%d insufficient-VUs warnings, want 1:\n%s", n, logs)
			}
		})
	}
}

// Arrival-rate executors add VUs up to maxVUs in the background when arrivals find
// every VU busy.
func TestArrivalRateGrowsToMaxVUs(t *testing.T) {
	t.Parallel()
	r, rec := newRun(t, `{"scenarios": {"s": {"executor": "constant-arrival-rate", "rate": 200, "duration": "400ms",
		"preAllocatedVUs": 1, "maxVUs": 6}}}`, fakeScript(sleeper(40*time.Millisecond)))
	res := r.Run(context.Background())
	if got := r.pool.initialized.Load(); got != 6 {
		t.Errorf("%d VUs initialised, want 6", got)
	}
	if res.IterationsCompleted < 20 {
		t.Errorf("result %+v", res)
	}
	maxes := rec.values("vus_max")
	if len(maxes) == 0 || maxes[len(maxes)-1] != 6 {
		t.Errorf("vus_max samples %v", maxes)
	}
}

func TestSegmentRunsItsShare(t *testing.T) {
	t.Parallel()
	seg, _ := ParseSegment("0:1/2")
	var n atomic.Int64
	r, _ := newRun(t, `{"scenarios": {"a": {"executor": "shared-iterations", "vus": 4, "iterations": 9},
		"b": {"executor": "constant-arrival-rate", "rate": 10, "timeUnit": "100ms", "duration": "200ms", "preAllocatedVUs": 2}}}`,
		fakeScript(func(context.Context, uint64, *js.Iteration) error { n.Add(1); return nil }), WithSegment(seg))
	res := r.Run(context.Background())
	// a: floor(9/2) = 4 iterations; b: every other one of 20 arrivals = 10.
	if res.IterationsCompleted+res.IterationsDropped != 14 || r.plan.PlannedVUs != 3 {
		t.Errorf("result %+v, planned VUs %d", res, r.plan.PlannedVUs)
	}
}

// Arrivals all due at once find every pre-allocated VU free: none is dropped or reported
// as insufficient while the VUs' goroutines start.
func TestSimultaneousArrivalsUseEveryPreAllocatedVU(t *testing.T) {
	t.Parallel()
	for range 5 {
		var logs syncBuffer
		r, rec := newRun(t, `{"scenarios": {"s": {"executor": "poisson-arrival-rate", "rate": "inf", "iterations": 40,
			"maxVUs": 40, "onSaturation": "drop"}}}`, fakeScript(sleeper(20*time.Millisecond)), WithLogger(slogTo(&logs)))
		res := r.Run(context.Background())
		if res.IterationsCompleted != 40 || rec.sum("dropped_iterations") != 0 {
			t.Fatalf("completed %d, dropped %v; want 40 and 0", res.IterationsCompleted, rec.sum("dropped_iterations"))
		}
		if strings.Contains(logs.String(), "insufficient VUs") {
			t.Fatalf("spurious warning: %s", logs.String())
		}
	}
}

// A run shorter than the gauge's one-second tick still shows its VUs in vus.
func TestVUsGaugeSeesShortRuns(t *testing.T) {
	t.Parallel()
	r, rec := newRun(t, `{"scenarios": {"s": {"executor": "per-vu-iterations", "vus": 3, "iterations": 1, "startTime": "50ms"}}}`,
		fakeScript(sleeper(100*time.Millisecond)))
	r.Run(context.Background())
	peak := 0.0
	for _, v := range rec.values("vus") {
		peak = max(peak, v)
	}
	if peak != 3 {
		t.Errorf("vus peaked at %v, want 3 (samples %v)", peak, rec.values("vus"))
	}
}
