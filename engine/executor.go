package engine

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// executor drives one scenario: it borrows VUs from the pool, starts iterations through
// the scenario until its work is done or the scenario stops starting, and returns its VUs.
type executor interface {
	shape() shape
	run(s *scenario)
}

// shape is what an executor tells the plan about itself.
type shape struct {
	vus, maxVUs int64
	// duration is how long it may start iterations, before gracefulStop.
	duration time.Duration
	// iterations is the planned number of iterations, 0 when it depends on the run.
	iterations int64
	// byIterations: progress counts iterations rather than time.
	byIterations bool
	// endsItself: the executor stops starting iterations itself when its schedule ends,
	// so duration is when that is planned, not a deadline that could cut its last one.
	endsItself bool
}

// executorSpec is one executor type: its own keys and how a validated config becomes an
// executor for a segment of the test.
type executorSpec struct {
	keys  []string
	build func(c *check, sc *ScenarioConfig, seg Segment) executor
}

// executors is the set of executor types by name; a new executor is a new file and a line here.
var executors = map[string]executorSpec{
	"shared-iterations":     {[]string{"vus", "iterations", "maxDuration"}, buildSharedIterations},
	"per-vu-iterations":     {[]string{"vus", "iterations", "maxDuration"}, buildPerVUIterations},
	"constant-vus":          {[]string{"vus", "duration"}, buildConstantVUs},
	"ramping-vus":           {[]string{"startVUs", "stages", "gracefulRampDown"}, buildRampingVUs},
	"constant-arrival-rate": {[]string{"rate", "timeUnit", "duration", "preAllocatedVUs", "maxVUs", "onSaturation"}, buildConstantArrivalRate},
	"ramping-arrival-rate":  {[]string{"startRate", "timeUnit", "stages", "preAllocatedVUs", "maxVUs", "onSaturation"}, buildRampingArrivalRate},
	"poisson-arrival-rate":  {[]string{"rate", "timeUnit", "burstiness", "iterations", "duration", "maxDuration", "seed", "preAllocatedVUs", "maxVUs", "onSaturation"}, buildPoissonArrivalRate},
	"trace-replay":          {[]string{"trace", "format", "speed", "preAllocatedVUs", "maxVUs", "onSaturation"}, buildTraceReplay},
}

// buildExecutor validates sc and builds its executor for seg.
func buildExecutor(name string, sc *ScenarioConfig, seg Segment) (executor, error) {
	names := sortedKeys(executors)
	if sc.Executor == "" {
		return nil, optionsErrorf("scenario %q: \"executor\" is required; use one of %s", name, strings.Join(names, ", "))
	}
	spec, ok := executors[sc.Executor]
	if !ok {
		return nil, optionsErrorf("scenario %q: unknown executor %q; use one of %s", name, sc.Executor, strings.Join(names, ", "))
	}
	for _, k := range sc.keys {
		if !slices.Contains(commonKeys, k) && !slices.Contains(spec.keys, k) {
			return nil, optionsErrorf("scenario %q (%s): unknown key %q; valid keys are %s", name, sc.Executor, k, strings.Join(append(slices.Clone(commonKeys), spec.keys...), ", "))
		}
	}
	c := &check{scenario: name, executor: sc.Executor}
	c.dur("startTime", sc.StartTime, 0, 0)
	c.dur("gracefulStop", sc.GracefulStop, DefaultGracefulStop, 0)
	e := spec.build(c, sc, seg)
	if c.err != nil {
		return nil, c.err
	}
	return e, nil
}

// check validates one scenario's keys, keeping the first error so the user gets one
// message that names the scenario, the executor and the key.
type check struct {
	scenario, executor string
	err                error
}

func (c *check) failf(format string, args ...any) {
	if c.err == nil {
		c.err = optionsErrorf("scenario %q (%s): %s", c.scenario, c.executor, fmt.Sprintf(format, args...))
	}
}

// required reports whether the key is set, failing when it is not.
func (c *check) required(key string, isSet bool) bool {
	if !isSet {
		c.failf("%q is required", key)
	}
	return isSet
}

// int returns v or def, failing when v is below lo.
func (c *check) int(key string, v *int64, def, lo int64) int64 {
	if v == nil {
		return def
	}
	if *v < lo {
		c.failf("%q must be at least %d, got %d", key, lo, *v)
	}
	return *v
}

// dur returns v or def, failing when v is below lo (0: not negative, 1: positive).
func (c *check) dur(key string, v *Duration, def, lo time.Duration) time.Duration {
	if v == nil {
		return def
	}
	if v.D() < lo {
		if lo == 0 {
			c.failf("%q must not be negative, got %s", key, *v)
		} else {
			c.failf("%q must be positive, got %s", key, *v)
		}
	}
	return v.D()
}

// rate returns v (required) or def, failing on negative, NaN or (unless allowInf) infinite rates.
func (c *check) rate(key string, v *Rate, def float64, allowInf bool) float64 {
	if v == nil {
		return def
	}
	r := float64(*v)
	if math.IsNaN(r) || r < 0 || (!allowInf && math.IsInf(r, 1)) {
		c.failf("%q must be a non-negative number, got %v", key, r)
	}
	return r
}

// stages validates ramp stages; whole requires whole-number targets (VUs).
func (c *check) stages(st []Stage, whole bool) {
	if len(st) == 0 {
		c.failf("\"stages\" must have at least one stage")
	}
	for i, s := range st {
		switch {
		case s.Duration < 0:
			c.failf("stage %d: duration must not be negative, got %s", i+1, s.Duration)
		case s.Target < 0 || math.IsNaN(s.Target) || math.IsInf(s.Target, 0):
			c.failf("stage %d: target must be a non-negative number, got %v", i+1, s.Target)
		case whole && s.Target != math.Trunc(s.Target):
			c.failf("stage %d: target must be a whole number of VUs, got %v", i+1, s.Target)
		}
	}
}

// onSaturation reads what to do with an arrival that finds no free VU.
func (c *check) onSaturation(v, def string) bool {
	switch v {
	case "":
		return def == "queue"
	case "drop", "queue":
		return v == "queue"
	}
	c.failf("\"onSaturation\" must be \"drop\" or \"queue\", got %q", v)
	return false
}

func stagesDuration(st []Stage) time.Duration {
	var d time.Duration
	for _, s := range st {
		d += s.Duration.D()
	}
	return d
}
