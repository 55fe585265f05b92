package engine

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Duration is a time.Duration that decodes from JSON as a Go duration string ("500ms",
// "30s", "1m30s", "1h") or as a number of milliseconds, like k6's options.
type Duration time.Duration

// ParseDuration parses a duration string or a plain number of milliseconds.
func ParseDuration(s string) (Duration, error) {
	s = strings.TrimSpace(s)
	if ms, err := strconv.ParseFloat(s, 64); err == nil {
		return fromMillis(ms)
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q: use a value like \"500ms\", \"30s\", \"1m30s\", \"1h\" or a number of milliseconds", s)
	}
	return Duration(d), nil
}

func fromMillis(ms float64) (Duration, error) {
	if math.IsNaN(ms) || math.IsInf(ms, 0) || math.Abs(ms) > float64(math.MaxInt64/int64(time.Millisecond)) {
		return 0, fmt.Errorf("invalid duration %v ms: out of range", ms)
	}
	return Duration(ms * float64(time.Millisecond)), nil
}

// UnmarshalJSON accepts a string or a number of milliseconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	var err error
	switch v := v.(type) {
	case string:
		*d, err = ParseDuration(v)
	case float64:
		*d, err = fromMillis(v)
	default:
		err = fmt.Errorf("invalid duration %s: use a string like \"30s\" or a number of milliseconds", b)
	}
	return err
}

// MarshalJSON writes the duration as a string such as "1m30s".
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// String formats like time.Duration.
func (d Duration) String() string { return time.Duration(d).String() }

// D returns the time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// Rate is an arrival rate per timeUnit. It decodes from a number or, for the Poisson
// executor, the string "inf" (every iteration due at once, like vllm's --request-rate inf).
type Rate float64

// UnmarshalJSON accepts a number, "inf" or "Infinity".
func (r *Rate) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch v := v.(type) {
	case float64:
		*r = Rate(v)
		return nil
	case string:
		if s := strings.ToLower(strings.TrimSpace(v)); s == "inf" || s == "infinity" {
			*r = Rate(math.Inf(1))
			return nil
		}
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			*r = Rate(f)
			return nil
		}
	}
	return fmt.Errorf("invalid rate %s: use a number or \"inf\"", b)
}

// MarshalJSON writes infinity as "inf" since JSON has no infinite number.
func (r Rate) MarshalJSON() ([]byte, error) {
	if math.IsInf(float64(r), 1) {
		return []byte(`"inf"`), nil
	}
	return json.Marshal(float64(r))
}
