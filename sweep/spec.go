package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/omnik-dev/omnik/engine"
)

// Spec is what a sweep varies and how long it looks at each load: the script's
// options.sweep under the command line's flags.
type Spec struct {
	// Scenario is the swept scenario; "" is the script's only one.
	Scenario string  `json:"scenario"`
	Knob     Knob    `json:"knob"`
	Min      float64 `json:"min"`
	Max      float64 `json:"max"`
	// Factor multiplies the load at each step of the geometric pass.
	Factor float64 `json:"factor"`
	// Precision is how close the answer's bracket gets: fail/pass ≤ 1+Precision.
	Precision float64 `json:"precision"`
	// Warmup is left out of each step; Duration is each step's measured window.
	Warmup   time.Duration `json:"warmup_ns"`
	Duration time.Duration `json:"duration_ns"`
	// MaxTime caps the whole sweep: a step that would end past it is not started.
	MaxTime time.Duration `json:"max_time_ns"`
	// Cooldown is the pause between steps, for a real server to drain what the last
	// one left queued.
	Cooldown time.Duration `json:"cooldown_ns"`
}

// Defaults of a Spec's fields.
const (
	DefaultFactor    = 2
	DefaultPrecision = 0.05
	DefaultWarmup    = 10 * time.Second
	DefaultDuration  = 30 * time.Second
	DefaultMaxTime   = 30 * time.Minute
	DefaultCooldown  = 5 * time.Second
)

// Bounds on what a sweep takes: past them a value is a typo, not a test.
const (
	maxLoad      = 1e6
	minFactor    = 1.1
	maxFactor    = 16
	minPrecision = 0.001
)

// scriptSpec is options.sweep as a script writes it.
type scriptSpec struct {
	Scenario  string           `json:"scenario"`
	Rate      *[2]float64      `json:"rate"`
	VUs       *[2]float64      `json:"vus"`
	Factor    *float64         `json:"factor"`
	Precision *float64         `json:"precision"`
	Warmup    *engine.Duration `json:"warmup"`
	Duration  *engine.Duration `json:"duration"`
	MaxTime   *engine.Duration `json:"maxTime"`
	Cooldown  *engine.Duration `json:"cooldown"`
}

// ParseScriptSpec reads options.sweep (raw nil: none) over the defaults.
func ParseScriptSpec(raw json.RawMessage) (Spec, error) {
	s := Spec{Factor: DefaultFactor, Precision: DefaultPrecision, Warmup: DefaultWarmup, Duration: DefaultDuration,
		MaxTime: DefaultMaxTime, Cooldown: DefaultCooldown}
	if len(raw) == 0 {
		return s, nil
	}
	var in scriptSpec
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return s, fmt.Errorf("options.sweep: %v (keys: scenario, rate: [min, max], vus: [min, max], factor, precision, warmup, duration, maxTime, cooldown)", err)
	}
	s.Scenario = in.Scenario
	switch {
	case in.Rate != nil && in.VUs != nil:
		return s, fmt.Errorf("options.sweep: rate and vus both set; a sweep varies one")
	case in.Rate != nil:
		s.Knob, s.Min, s.Max = Rate, in.Rate[0], in.Rate[1]
	case in.VUs != nil:
		s.Knob, s.Min, s.Max = VUs, in.VUs[0], in.VUs[1]
	}
	setF := func(dst *float64, v *float64) {
		if v != nil {
			*dst = *v
		}
	}
	setD := func(dst *time.Duration, v *engine.Duration) {
		if v != nil {
			*dst = v.D()
		}
	}
	setF(&s.Factor, in.Factor)
	setF(&s.Precision, in.Precision)
	setD(&s.Warmup, in.Warmup)
	setD(&s.Duration, in.Duration)
	setD(&s.MaxTime, in.MaxTime)
	setD(&s.Cooldown, in.Cooldown)
	return s, nil
}

// ParseRange reads MIN:MAX (--rate 1:64, --vus 1:256).
func ParseRange(s string) (lo, hi float64, err error) {
	a, b, ok := strings.Cut(s, ":")
	if ok {
		lo, err = strconv.ParseFloat(strings.TrimSpace(a), 64)
	}
	if ok && err == nil {
		hi, err = strconv.ParseFloat(strings.TrimSpace(b), 64)
	}
	if !ok || err != nil {
		return 0, 0, fmt.Errorf("%q: want MIN:MAX, e.g. 1:64", s)
	}
	return lo, hi, nil
}

// ParsePrecision reads 5% or 0.05.
func ParsePrecision(s string) (float64, error) {
	v, pct := strings.CutSuffix(strings.TrimSpace(s), "%")
	p, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		return 0, fmt.Errorf("%q: want a fraction (0.05) or a percentage (5%%)", s)
	}
	if pct {
		p /= 100
	}
	return p, nil
}

// Check says what is wrong with a Spec, one message for all.
func (s Spec) Check() error {
	var bad []string
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case s.Knob == "":
		bad = append(bad, "no load to sweep: give --rate MIN:MAX or --vus MIN:MAX, or options.sweep.rate or .vus")
	case !finite(s.Min) || !finite(s.Max) || s.Min <= 0 || s.Max < s.Min || s.Max > maxLoad:
		bad = append(bad, fmt.Sprintf("the %s range %v:%v: want 0 < MIN ≤ MAX ≤ %g", s.Knob, s.Min, s.Max, float64(maxLoad)))
	case s.Knob == VUs && (s.Min != math.Trunc(s.Min) || s.Max != math.Trunc(s.Max)):
		bad = append(bad, fmt.Sprintf("the vus range %v:%v: want whole numbers", s.Min, s.Max))
	}
	if !finite(s.Factor) || s.Factor < minFactor || s.Factor > maxFactor {
		bad = append(bad, fmt.Sprintf("factor %v: want %g to %d", s.Factor, minFactor, maxFactor))
	}
	if !finite(s.Precision) || s.Precision < minPrecision || s.Precision > 1 {
		bad = append(bad, fmt.Sprintf("precision %v: want %g (0.1%%) to 1 (100%%)", s.Precision, minPrecision))
	}
	if s.Warmup < 0 || s.Cooldown < 0 {
		bad = append(bad, "warmup and cooldown: want 0 or more")
	}
	if s.Duration <= 0 {
		bad = append(bad, fmt.Sprintf("step duration %v: want more than 0", s.Duration))
	}
	if s.MaxTime < s.Warmup+s.Duration {
		bad = append(bad, fmt.Sprintf("max time %v: want at least one step's warm-up and duration (%v)", s.MaxTime, s.Warmup+s.Duration))
	}
	if len(bad) > 0 {
		return fmt.Errorf("sweep: %s", strings.Join(bad, "; "))
	}
	return nil
}
