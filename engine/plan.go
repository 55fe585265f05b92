package engine

import (
	"cmp"
	"slices"
	"time"
)

// ExecutionPlan is what a run will do, derived from consolidated options for one
// execution segment; `omnik inspect` prints it as JSON.
type ExecutionPlan struct {
	Segment   Segment        `json:"segment"`
	Scenarios []ScenarioPlan `json:"scenarios"`
	// PlannedVUs are initialised before the start: the peak, over time, of the VUs of the
	// scenarios that run at once (counting each one's gracefulStop).
	PlannedVUs int64 `json:"plannedVUs"`
	// MaxVUs bounds the VUs ever alive, counting arrival-rate executors' growth to maxVUs.
	MaxVUs int64 `json:"maxVUs"`
	// MaxDuration is the longest the scenarios can take: the latest startTime + duration
	// + gracefulStop. Setup and teardown come on top.
	MaxDuration Duration `json:"maxDuration"`
}

// ScenarioPlan is one scenario of the plan.
type ScenarioPlan struct {
	Name     string `json:"name"`
	Executor string `json:"executor"`
	Exec     string `json:"exec"`
	// VUs are the VUs it starts with (preAllocatedVUs for arrival-rate executors);
	// MaxVUs the most it can use.
	VUs    int64 `json:"vus"`
	MaxVUs int64 `json:"maxVUs"`
	// Iterations is the planned number of iterations, when known before the run.
	Iterations   int64             `json:"iterations,omitempty"`
	StartTime    Duration          `json:"startTime"`
	Duration     Duration          `json:"duration"`
	GracefulStop Duration          `json:"gracefulStop"`
	Env          map[string]string `json:"env,omitempty"`
	Tags         map[string]string `json:"tags,omitempty"`
	Config       *ScenarioConfig   `json:"config"`

	exec         executor
	byIterations bool
	endsItself   bool
}

// End is when the scenario has certainly finished, from the start of the test.
func (p ScenarioPlan) End() time.Duration {
	return p.StartTime.D() + p.Duration.D() + p.GracefulStop.D()
}

// NewPlan builds the plan of consolidated options o for the segment seg of the test.
func NewPlan(o Options, seg Segment) (*ExecutionPlan, error) {
	plan := &ExecutionPlan{Segment: seg}
	for _, name := range sortedKeys(o.Scenarios) {
		sc := o.Scenarios[name]
		e, err := buildExecutor(name, sc, seg)
		if err != nil {
			return nil, err
		}
		sh := e.shape()
		plan.Scenarios = append(plan.Scenarios, ScenarioPlan{
			Name: name, Executor: sc.Executor, Exec: execName(sc),
			VUs: sh.vus, MaxVUs: sh.maxVUs, Iterations: sh.iterations,
			StartTime: Duration(orZero(sc.StartTime)), Duration: Duration(sh.duration),
			GracefulStop: Duration(orDefault(sc.GracefulStop, DefaultGracefulStop)),
			Env:          sc.Env, Tags: sc.Tags, Config: sc,
			exec: e, byIterations: sh.byIterations, endsItself: sh.endsItself,
		})
	}
	slices.SortStableFunc(plan.Scenarios, func(a, b ScenarioPlan) int { return cmp.Compare(a.StartTime, b.StartTime) })
	plan.PlannedVUs = peak(plan.Scenarios, func(p ScenarioPlan) int64 { return p.VUs })
	plan.MaxVUs = peak(plan.Scenarios, func(p ScenarioPlan) int64 { return p.MaxVUs })
	for _, p := range plan.Scenarios {
		plan.MaxDuration = max(plan.MaxDuration, Duration(p.End()))
	}
	return plan, nil
}

// peak is the largest sum of n over scenarios running at the same time. Sums only grow
// when a scenario starts, so checking every start time is enough.
func peak(ps []ScenarioPlan, n func(ScenarioPlan) int64) int64 {
	var best int64
	for _, at := range ps {
		var sum int64
		for _, p := range ps {
			if p.StartTime <= at.StartTime && at.StartTime.D() < max(p.End(), p.StartTime.D()+1) {
				sum += n(p)
			}
		}
		best = max(best, sum)
	}
	return best
}

func orZero(d *Duration) time.Duration { return orDefault(d, 0) }

func orDefault(d *Duration, def time.Duration) time.Duration {
	if d == nil {
		return def
	}
	return d.D()
}
