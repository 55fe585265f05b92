package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
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
				seen[it.InTest] = true
				mu.Unlock()
				time.Sleep(time.Millisecond)
				return nil
			}))
			res := r.Run(context.Background())
			if res.IterationsCompleted != tt.total || res.IterationsDropped != 0 || ExitCodeFor(res, true, nil) != ExitOK || res.Interrupted {
				t.Errorf("result %+v", res)
			}
			if int64(len(seen)) != tt.total {
				t.Errorf("%d distinct InTest numbers, want %d", len(seen), tt.total)
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
	synctest.Test(t, func(t *testing.T) {
		for _, sc := range []string{
			`{"executor": "shared-iterations", "vus": 2, "iterations": 100, "maxDuration": "100ms", "gracefulStop": "0s"}`,
			`{"executor": "per-vu-iterations", "vus": 2, "iterations": 50, "maxDuration": "100ms", "gracefulStop": "0s"}`,
		} {
			r, rec := newRun(t, `{"scenarios": {"s": `+sc+`}}`, fakeScript(sleeper(30*time.Millisecond)))
			res := r.Run(context.Background())
			// Each VU completes 3 iterations of 30 ms; its 4th is cut at 100 ms.
			if res.IterationsCompleted != 6 || res.IterationsInterrupted != 2 || res.IterationsDropped != 92 || res.DroppedNoVU != 0 {
				t.Errorf("%s: result %+v, want 6 completed, 2 interrupted, 92 dropped (none for want of a VU)", sc, res)
			}
			if got := rec.sum("dropped_iterations"); got != float64(res.IterationsDropped) {
				t.Errorf("dropped_iterations samples sum to %v, result says %d", got, res.IterationsDropped)
			}
		}
	})
}

func TestConstantVUsKeepsVUsBusyForTheDuration(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var g gauge
		r, _ := newRun(t, `{"vus": 4, "duration": "300ms"}`, fakeScript(g.wrap(sleeper(7*time.Millisecond))))
		start := time.Now()
		res := r.Run(context.Background())
		// Each VU starts its 43rd iteration at 294 ms; it ends at 301 ms, within gracefulStop.
		if ran := time.Since(start); ran != 301*time.Millisecond || res.IterationsCompleted != 4*43 || res.IterationsInterrupted != 0 {
			t.Errorf("ran %v, result %+v; want 301ms and 172 iterations", ran, res)
		}
		if g.peak.Load() != 4 {
			t.Errorf("peak concurrency %d, want 4", g.peak.Load())
		}
	})
}

func TestRampingVUsFollowsStages(t *testing.T) {
	t.Parallel()
	// Iterations of 3.3 ms never end at a step (every 100 ms) or at a sample (50 ms past
	// one), so no two events come at once.
	const iteration = 3300 * time.Microsecond
	synctest.Test(t, func(t *testing.T) {
		var g gauge
		r, _ := newRun(t, `{"scenarios": {"ramp": {"executor": "ramping-vus", "startVUs": 0, "gracefulRampDown": "0s",
			"stages": [{"duration": "400ms", "target": 4}, {"duration": "200ms", "target": 4}, {"duration": "400ms", "target": 0}]}}}`,
			fakeScript(g.wrap(sleeper(iteration))))
		done := make(chan Result)
		start := time.Now() // the scenario's start too: nothing before it takes time here
		go func() { done <- r.Run(context.Background()) }()
		// One VU more every 100 ms up to 4 at 400 ms, then from 600 ms one fewer every 100 ms;
		// sampled between the steps, once every VU is in its iteration.
		var got []int64
		for _, at := range []time.Duration{50, 150, 250, 350, 450, 550, 650, 750, 850, 950} {
			time.Sleep(time.Until(start.Add(at * time.Millisecond)))
			synctest.Wait()
			got = append(got, g.now.Load())
		}
		res := <-done
		if want := []int64{0, 1, 2, 3, 4, 4, 4, 3, 2, 1}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("active VUs every 100 ms %v, want %v", got, want)
		}
		// The last VU's ramp-down and the end of the stages come at once: its iteration is
		// cut, or finishes within gracefulStop.
		if g.peak.Load() != 4 || res.IterationsCompleted == 0 || res.Duration < time.Second || res.Duration > time.Second+iteration {
			t.Errorf("peak %d, result %+v", g.peak.Load(), res)
		}
	})
}

// A ramped-down VU finishes its iteration within gracefulRampDown, then is interrupted.
func TestRampingVUsInterruptsAfterGracefulRampDown(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		r, _ := newRun(t, `{"scenarios": {"ramp": {"executor": "ramping-vus", "startVUs": 2, "gracefulRampDown": "50ms", "gracefulStop": "0s",
			"stages": [{"duration": "100ms", "target": 2}, {"duration": "0s", "target": 1}, {"duration": "200ms", "target": 1}]}}}`,
			fakeScript(sleeper(time.Hour)))
		res := r.Run(context.Background())
		// VU 2 is cut 50 ms after its ramp-down at 100 ms, VU 1 when the 300 ms end.
		if res.IterationsInterrupted != 2 || res.IterationsCompleted != 0 || res.Duration != 300*time.Millisecond {
			t.Errorf("result %+v", res)
		}
	})
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
			synctest.Test(t, func(t *testing.T) {
				var arr arrivalRecorder
				r, rec := newRun(t, `{"scenarios": {"s": `+tt.scenario+`}}`, fakeScript(arr.wrap(sleeper(time.Millisecond))))
				res := r.Run(context.Background())
				// Iterations of 1 ms always find a free VU: every one starts, on time.
				if res.IterationsCompleted != tt.want || res.IterationsDropped != 0 {
					t.Errorf("result %+v, want %d iterations", res, tt.want)
				}
				lags := rec.values("schedule_lag")
				if int64(len(lags)) != res.IterationsCompleted {
					t.Errorf("%d schedule_lag samples for %d iterations", len(lags), res.IterationsCompleted)
				}
				for _, lag := range lags {
					if lag != 0 {
						t.Fatalf("schedule_lag %v ms, want 0", lag)
					}
				}
				arr.mu.Lock()
				defer arr.mu.Unlock()
				for i, off := range arr.offsets {
					if off < 0 || off > time.Second || tt.name == "constant" && off != time.Duration(i)*10*time.Millisecond {
						t.Errorf("iteration %d intended at %v", i, off)
					}
				}
			})
		})
	}
}

func TestRampingArrivalRateSpeedsUp(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var arr arrivalRecorder
		r, _ := newRun(t, `{"scenarios": {"s": {"executor": "ramping-arrival-rate", "startRate": 0, "preAllocatedVUs": 4,
			"stages": [{"duration": "400ms", "target": 200}]}}}`, fakeScript(arr.wrap(sleeper(0))))
		r.Run(context.Background())
		var early, late int
		for _, off := range arr.offsets {
			if off < 190*time.Millisecond {
				early++
			} else {
				late++
			}
		}
		// N(t) = 250·t² arrivals by t seconds: 9.025 by 190 ms, so arrivals 0…9 are early.
		if early != 10 || late != 30 {
			t.Errorf("early %d, late %d; want 10 and 30", early, late)
		}
	})
}

// The Poisson schedule over a fixed seed: intended gaps average 1/rate.
func TestPoissonArrivalRateSchedule(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var arr arrivalRecorder
		r, _ := newRun(t, `{"scenarios": {"s": {"executor": "poisson-arrival-rate", "rate": 100, "duration": "500ms", "seed": 11, "maxVUs": 8}}}`,
			fakeScript(arr.wrap(sleeper(time.Millisecond))))
		res := r.Run(context.Background())
		within(t, "arrivals in 500ms at 100/s", float64(res.IterationsCompleted), 30, 75)
		arr.mu.Lock()
		defer arr.mu.Unlock()
		if arr.offsets[0] != 0 || res.IterationsDropped != 0 {
			t.Errorf("first arrival at %v, want 0; result %+v", arr.offsets[0], res)
		}
	})
}

// rate "inf" makes every iteration due at once; maxVUs bounds concurrency and the rest
// queue, so schedule_lag grows by one iteration time per wave.
func TestPoissonInfiniteRateQueuesBehindMaxVUs(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
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
		// Four waves of five, 20 ms apart.
		if lags := rec.values("schedule_lag"); fmt.Sprint(lags) != fmt.Sprint([]float64{0, 0, 0, 0, 0, 20, 20, 20, 20, 20, 40, 40, 40, 40, 40, 60, 60, 60, 60, 60}) {
			t.Errorf("schedule_lag %v", lags)
		}
	})
}

// With one VU busy 45 ms and an arrival every 10 ms, drop mode drops and keeps the
// schedule; queue mode starts every arrival late and records how late.
func TestSaturationDropVersusQueue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mode                     string
		completed, dropped, noVU int64
		maxLag                   float64
	}{
		// Arrivals at 0, 50, …, 250 ms find the VU free; the others find it busy.
		{"drop", 6, 24, 24, 0},
		// Arrival k starts at 45k ms, 35k ms late; the 8th would start after the 300 ms
		// end: those left when it ended are dropped, but none for want of a VU.
		{"queue", 7, 23, 0, 210},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				logs := &syncBuffer{}
				r, rec := newRun(t, `{"scenarios": {"s": {"executor": "constant-arrival-rate", "rate": 100, "duration": "300ms",
					"preAllocatedVUs": 1, "maxVUs": 1, "gracefulStop": "1s", "onSaturation": "`+tt.mode+`"}}}`,
					fakeScript(sleeper(45*time.Millisecond)), WithLogger(slogTo(logs)))
				res := r.Run(context.Background())
				if res.IterationsCompleted != tt.completed || res.IterationsDropped != tt.dropped || res.DroppedNoVU != tt.noVU || res.IterationsInterrupted != 0 {
					t.Errorf("result %+v, want %d completed and %d dropped, %d of them finding no VU", res, tt.completed, tt.dropped, tt.noVU)
				}
				if got := rec.sum("dropped_iterations"); got != float64(res.IterationsDropped) {
					t.Errorf("dropped_iterations %v, result %d", got, res.IterationsDropped)
				}
				var maxLag float64
				for _, l := range rec.values("schedule_lag") {
					maxLag = max(maxLag, l)
				}
				if maxLag != tt.maxLag {
					t.Errorf("largest schedule_lag %v ms, want %v", maxLag, tt.maxLag)
				}
				if n := countLines(logs.String(), "insufficient VUs"); n != 1 {
					t.Errorf("%d insufficient-VUs warnings, want 1:\n%s", n, logs)
				}
			})
		})
	}
}

// Arrival-rate executors add VUs up to maxVUs in the background when arrivals find
// every VU busy.
func TestArrivalRateGrowsToMaxVUs(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		r, rec := newRun(t, `{"scenarios": {"s": {"executor": "constant-arrival-rate", "rate": 200, "duration": "400ms",
			"preAllocatedVUs": 1, "maxVUs": 6}}}`, fakeScript(sleeper(40*time.Millisecond)))
		res := r.Run(context.Background())
		if got := r.pool.initialized.Load(); got != 6 {
			t.Errorf("%d VUs initialised, want 6", got)
		}
		if res.IterationsCompleted < 20 || res.IterationsCompleted+res.IterationsDropped != 80 {
			t.Errorf("result %+v", res)
		}
		maxes := rec.values("vus_max")
		if len(maxes) == 0 || maxes[len(maxes)-1] != 6 {
			t.Errorf("vus_max samples %v", maxes)
		}
	})
}

func TestSegmentRunsItsShare(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		seg, _ := ParseSegment("0:1/2")
		r, _ := newRun(t, `{"scenarios": {"a": {"executor": "shared-iterations", "vus": 4, "iterations": 9},
			"b": {"executor": "constant-arrival-rate", "rate": 10, "timeUnit": "100ms", "duration": "200ms", "preAllocatedVUs": 2}}}`,
			fakeScript(sleeper(0)), WithSegment(seg))
		res := r.Run(context.Background())
		// a: indices 0, 2, 4, 6, 8 of 9 = 5 iterations; b: every other one of 20 arrivals = 10.
		if res.IterationsCompleted != 15 || res.IterationsDropped != 0 || r.plan.PlannedVUs != 3 {
			t.Errorf("result %+v, planned VUs %d", res, r.plan.PlannedVUs)
		}
	})
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
	synctest.Test(t, func(t *testing.T) {
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
	})
}

// N indexed pieces are adjacent segments covering the whole test: each index of the
// whole test is owned by exactly one, and their shares of any count sum to it.
func TestIndexedSegmentsPartitionTheTest(t *testing.T) {
	t.Parallel()
	for _, n := range []int64{1, 2, 3, 4, 7} {
		var pieces []Segment
		for i := range n {
			s, err := IndexedSegment(i, n)
			if err != nil {
				t.Fatal(err)
			}
			pieces = append(pieces, s)
		}
		checkPartition(t, pieces, 200)
	}
	for _, bad := range [][2]int64{{4, 4}, {-1, 4}, {0, 0}} {
		if _, err := IndexedSegment(bad[0], bad[1]); err == nil {
			t.Errorf("IndexedSegment(%d, %d) accepted", bad[0], bad[1])
		}
	}
}

// Pieces of unequal size partition the test when they share their sequence; the same
// pieces parsed alone deal over different slots, which their Slots tell apart.
func TestSegmentSequencePartitionsUnequalPieces(t *testing.T) {
	t.Parallel()
	const seq = "0,1/3,1/2,1"
	var pieces []Segment
	for _, s := range []string{"0:1/3", "1/3:1/2", "1/2:1"} {
		p, err := ParseSegmentSequence(s, seq)
		if err != nil {
			t.Fatal(err)
		}
		if p.Slots() != 6 {
			t.Errorf("%s over %d slots, want 6", p, p.Slots())
		}
		pieces = append(pieces, p)
	}
	checkPartition(t, pieces, 60)
	if a, _ := ParseSegment("1/3:1/2"); a.Slots() != 6 {
		t.Errorf("1/3:1/2 alone over %d slots", a.Slots())
	}
	if b, _ := ParseSegment("1/2:1"); b.Slots() != 2 {
		t.Errorf("1/2:1 alone over %d slots", b.Slots())
	}
	for _, bad := range [][2]string{{"0:1/4", seq}, {"0:1/3", "0,1/3"}, {"0:1/3", "0,1/2,1/3,1"}, {"0:1/3", "0,1/3,x,1"}} {
		if _, err := ParseSegmentSequence(bad[0], bad[1]); err == nil {
			t.Errorf("ParseSegmentSequence(%q, %q) accepted", bad[0], bad[1])
		}
	}
}

// checkPartition fails unless exactly one piece owns each of the first n indices and the
// pieces' shares of every count up to n are the indices they own, summing to the count.
func checkPartition(t *testing.T, pieces []Segment, n int64) {
	t.Helper()
	owned := make([]int64, len(pieces))
	for k := range n {
		owners := 0
		for i, p := range pieces {
			if p.Scale(k) != owned[i] {
				t.Fatalf("%s: share of %d is %d, but it owns %d of them", p, k, p.Scale(k), owned[i])
			}
			if p.Owns(k) {
				owners++
				owned[i]++
			}
		}
		if owners != 1 {
			t.Fatalf("%v: index %d owned by %d pieces", pieces, k, owners)
		}
	}
}

// Split ramping-vus pieces add up to the single process's VUs at every moment: each
// piece follows the whole ramp, scaled, instead of ramping to its scaled targets.
func TestRampingVUsPiecesAddUpToTheWholeRamp(t *testing.T) {
	t.Parallel()
	stages := []Stage{{Duration: Duration(10 * time.Second), Target: 10}, {Duration: Duration(5 * time.Second), Target: 3}}
	whole := rampSteps(0, stages)
	active := func(steps []step, at time.Duration) int64 {
		v := int64(0)
		for _, st := range steps {
			if st.at <= at {
				v = st.vus
			}
		}
		return v
	}
	for _, n := range []int64{2, 3, 10} {
		var pieces [][]step
		for i := range n {
			seg, _ := IndexedSegment(i, n)
			pieces = append(pieces, scaleSteps(whole, seg))
		}
		for at := time.Duration(0); at <= 15*time.Second; at += 250 * time.Millisecond {
			var sum int64
			for _, p := range pieces {
				sum += active(p, at)
			}
			if want := active(whole, at); sum != want {
				t.Fatalf("%d pieces at %v: %d VUs, the whole ramp has %d", n, at, sum, want)
			}
		}
	}
}

// A piece whose share of the VUs is none still runs its share of shared iterations, and
// a thin arrival-rate piece has a pre-allocated VU for its first arrival.
func TestThinPiecesStillRunTheirShare(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		seg, _ := IndexedSegment(1, 2)
		r, rec := newRun(t, `{"scenarios": {"a": {"executor": "shared-iterations", "vus": 1, "iterations": 10},
			"b": {"executor": "constant-arrival-rate", "rate": 4, "timeUnit": "1s", "duration": "1s", "preAllocatedVUs": 1}}}`,
			fakeScript(sleeper(10*time.Millisecond)), WithSegment(seg))
		res := r.Run(context.Background())
		// a: 5 of 10; b: arrivals 1 and 3 of 4.
		if res.IterationsCompleted != 7 || rec.sum("dropped_iterations") != 0 {
			t.Errorf("completed %d, dropped %v; want 7 and 0", res.IterationsCompleted, rec.sum("dropped_iterations"))
		}
	})
}

// The pieces of a split closed executor number their iterations test-wide: together
// they use each number once, as one instance would.
func TestPiecesNumberIterationsTestWide(t *testing.T) {
	t.Parallel()
	for _, sc := range []string{`{"executor": "shared-iterations", "vus": 3, "iterations": 12}`,
		`{"executor": "per-vu-iterations", "vus": 4, "iterations": 3}`} {
		var mu sync.Mutex
		seen := map[uint64]int{}
		for i := range int64(4) {
			seg, _ := IndexedSegment(i, 4)
			r, _ := newRun(t, `{"scenarios": {"s": `+sc+`}}`, fakeScript(func(_ context.Context, _ uint64, it *js.Iteration) error {
				mu.Lock()
				seen[it.InTest]++
				mu.Unlock()
				return nil
			}), WithSegment(seg))
			r.Run(context.Background())
		}
		for n := uint64(0); n < 12; n++ {
			if seen[n] != 1 {
				t.Errorf("%s: iteration %d numbered %d times over the pieces (%v)", sc, n, seen[n], seen)
			}
		}
	}
}
