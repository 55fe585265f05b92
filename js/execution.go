package js

import (
	"encoding/json"
	"time"
)

// Scenario describes a running scenario to the VUs that serve it (omnik/execution.scenario).
// The engine creates one per scenario and shares it by pointer; it must not change after
// the scenario starts, except through Progress.
type Scenario struct {
	Name     string
	Executor string
	Exec     string            // exported function to call; "default" when empty
	Env      map[string]string // merged over the run's __ENV
	Tags     map[string]string // added to every sample of the scenario
	// StartTime is when the scenario started; Progress reports 0..1.
	StartTime time.Time
	Progress  func() float64
}

// Iteration is what one call of the scenario function needs to know about its place in
// the run.
type Iteration struct {
	Scenario *Scenario
	// InTest numbers the scenario's iterations across all VUs and every piece of a
	// distributed run, from 0; InInstance across this instance's VUs.
	InTest, InInstance uint64
	// IntendedStart is when an arrival-rate executor scheduled this iteration; zero for
	// closed-model executors. Modules may measure latency from it.
	IntendedStart time.Time
	// SetupData is setup()'s result. The engine passes the same slice to every
	// iteration, so a VU decodes it once.
	SetupData SetupData
	// TraceEntry is the request-log entry a trace-replay iteration replays, nil for
	// the other executors (omnik/execution.scenario.traceEntry).
	TraceEntry TraceEntry
}

// TraceEntry is one entry of a replayed trace. The trace is shared by every VU; a VU
// builds the entry's object only when its script reads it.
type TraceEntry interface {
	Object() map[string]any
}

// InstanceStats is the engine's live view of the run (omnik/execution.instance).
type InstanceStats struct {
	VUsActive             int64
	VUsInitialized        int64
	IterationsCompleted   int64
	IterationsInterrupted int64
	TestRunDuration       time.Duration
}

// Controller is implemented by the engine: scripts read run state and stop or fail the run
// through it.
type Controller interface {
	Stats() InstanceStats
	// Abort stops the run now (test.abort, exit 108).
	Abort(reason string)
	// Fail marks the run failed and lets it continue (test.fail, exit 110).
	Fail(reason string)
}

// SetupData is setup()'s JSON-encoded result; each VU decodes its own copy.
type SetupData = json.RawMessage
