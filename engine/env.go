package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// OptionsFromEnv reads the OMNIK_* layer from environ (os.Environ()):
// OMNIK_VUS, OMNIK_DURATION, OMNIK_ITERATIONS, OMNIK_STAGES ("30s:10,1m:0"),
// OMNIK_SETUP_TIMEOUT, OMNIK_TEARDOWN_TIMEOUT, OMNIK_MIN_ITERATION_DURATION,
// OMNIK_SUMMARY_TREND_STATS ("avg,p(99)"), OMNIK_SUMMARY_TIME_UNIT and OMNIK_NO_COLOR.
// Other variables are ignored; a malformed value is an *OptionsError.
func OptionsFromEnv(environ []string) (Options, error) {
	o := Options{Source: "environment"}
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		var err error
		switch k {
		case "OMNIK_VUS":
			o.VUs, err = parseCount(v)
		case "OMNIK_ITERATIONS":
			o.Iterations, err = parseCount(v)
		case "OMNIK_DURATION":
			o.Duration, err = parseDurationPtr(v)
		case "OMNIK_STAGES":
			o.Stages, err = ParseStages(strings.Split(v, ","))
		case "OMNIK_SETUP_TIMEOUT":
			o.SetupTimeout, err = parseDurationPtr(v)
		case "OMNIK_TEARDOWN_TIMEOUT":
			o.TeardownTimeout, err = parseDurationPtr(v)
		case "OMNIK_MIN_ITERATION_DURATION":
			o.MinIterationDuration, err = parseDurationPtr(v)
		case "OMNIK_SUMMARY_TREND_STATS":
			o.SummaryTrendStats = strings.Split(v, ",")
		case "OMNIK_SUMMARY_TIME_UNIT":
			o.SummaryTimeUnit = &v
		case "OMNIK_NO_COLOR":
			var b bool
			if b, err = strconv.ParseBool(v); err == nil {
				o.NoColor = &b
			}
		default:
			continue
		}
		if err != nil {
			return Options{}, optionsErrorf("environment: %s=%q: %v", k, v, err)
		}
	}
	return o, nil
}

// ParseStages parses stages written as "duration:target" ("30s:10"), as --stage and
// OMNIK_STAGES take them.
func ParseStages(specs []string) ([]Stage, error) {
	stages := make([]Stage, 0, len(specs))
	for _, spec := range specs {
		d, t, ok := strings.Cut(strings.TrimSpace(spec), ":")
		if !ok {
			return nil, fmt.Errorf("stage %q: use duration:target, like 30s:10", spec)
		}
		dur, err := ParseDuration(d)
		if err != nil {
			return nil, fmt.Errorf("stage %q: %w", spec, err)
		}
		target, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return nil, fmt.Errorf("stage %q: target %q is not a number", spec, t)
		}
		stages = append(stages, Stage{Duration: dur, Target: target})
	}
	return stages, nil
}

func parseCount(s string) (*int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("not a whole number")
	}
	return &n, nil
}

func parseDurationPtr(s string) (*Duration, error) {
	d, err := ParseDuration(s)
	if err != nil {
		return nil, err
	}
	return &d, nil
}
