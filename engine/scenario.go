package engine

import (
	"encoding/json"
	"fmt"
	"path/filepath"
)

// ScenarioConfig is one entry of options.scenarios. It holds the keys of every executor;
// each executor accepts only its own (an unused key is an error, since it is almost
// always a typo or a key meant for another executor).
type ScenarioConfig struct {
	Executor     string            `json:"executor"`
	StartTime    *Duration         `json:"startTime,omitempty"`
	GracefulStop *Duration         `json:"gracefulStop,omitempty"`
	Exec         string            `json:"exec,omitempty"`
	Env          map[string]string `json:"env,omitempty"`
	Tags         map[string]string `json:"tags,omitempty"`

	VUs              *int64    `json:"vus,omitempty"`
	Iterations       *int64    `json:"iterations,omitempty"`
	MaxDuration      *Duration `json:"maxDuration,omitempty"`
	Duration         *Duration `json:"duration,omitempty"`
	StartVUs         *int64    `json:"startVUs,omitempty"`
	Stages           []Stage   `json:"stages,omitempty"`
	GracefulRampDown *Duration `json:"gracefulRampDown,omitempty"`
	Rate             *Rate     `json:"rate,omitempty"`
	StartRate        *Rate     `json:"startRate,omitempty"`
	TimeUnit         *Duration `json:"timeUnit,omitempty"`
	PreAllocatedVUs  *int64    `json:"preAllocatedVUs,omitempty"`
	MaxVUs           *int64    `json:"maxVUs,omitempty"`
	Burstiness       *float64  `json:"burstiness,omitempty"`
	Seed             *int64    `json:"seed,omitempty"`
	OnSaturation     string    `json:"onSaturation,omitempty"`
	Trace            string    `json:"trace,omitempty"`
	Format           string    `json:"format,omitempty"`
	Speed            *float64  `json:"speed,omitempty"`

	// keys are the keys the source set, checked against the executor's.
	keys []string
	// traces keeps the trace file a decoded config names, so the plans built from it
	// (consolidation's check, the run's, inspect's) read and parse it once.
	traces *traceCache
}

// commonKeys are accepted by every executor.
var commonKeys = []string{"executor", "startTime", "gracefulStop", "exec", "env", "tags"}

func (c *ScenarioConfig) fields() map[string]any {
	return map[string]any{
		"executor": &c.Executor, "startTime": &c.StartTime, "gracefulStop": &c.GracefulStop,
		"exec": &c.Exec, "env": &c.Env, "tags": &c.Tags,
		"vus": &c.VUs, "iterations": &c.Iterations, "maxDuration": &c.MaxDuration,
		"duration": &c.Duration, "startVUs": &c.StartVUs, "stages": &c.Stages,
		"gracefulRampDown": &c.GracefulRampDown, "rate": &c.Rate, "startRate": &c.StartRate,
		"timeUnit": &c.TimeUnit, "preAllocatedVUs": &c.PreAllocatedVUs, "maxVUs": &c.MaxVUs,
		"burstiness": &c.Burstiness, "seed": &c.Seed, "onSaturation": &c.OnSaturation,
		"trace": &c.Trace, "format": &c.Format, "speed": &c.Speed,
	}
}

// UnmarshalJSON decodes key by key so an error names its key and unknown keys are kept
// for the executor's check.
func (c *ScenarioConfig) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("must be an object")
	}
	fields := c.fields()
	c.keys = c.keys[:0]
	c.traces = &traceCache{}
	for _, key := range sortedKeys(raw) {
		c.keys = append(c.keys, key)
		f := fields[key]
		if f == nil {
			continue // reported by the executor's key check, which knows the valid keys
		}
		if err := json.Unmarshal(raw[key], f); err != nil {
			return fmt.Errorf("key %q: %s", key, describeJSONError(err))
		}
	}
	return nil
}

// ResolvePaths makes the scenarios' relative file paths (a trace-replay's trace)
// relative to dir, the directory of the file whose options these are, so a script's
// trace is found beside it whatever the working directory.
func (o *Options) ResolvePaths(dir string) {
	for _, sc := range o.Scenarios {
		if sc.Trace != "" && !filepath.IsAbs(sc.Trace) {
			sc.Trace = filepath.Join(dir, sc.Trace)
		}
	}
}
