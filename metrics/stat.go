package metrics

import (
	"fmt"
	"strconv"
	"strings"
)

// Stat names one aggregation of a sink: count, rate, value, avg, min, max, med, passes,
// fails or p(N). Thresholds and summaryTrendStats use the same names.
type Stat struct {
	Name string  // one of the names above; "p" for a percentile
	P    float64 // the percentile in [0,100] when Name is "p"
}

// Percentile returns the stat p(n).
func Percentile(n float64) Stat { return Stat{Name: "p", P: n} }

// String is the canonical spelling: "avg", "p(99.9)".
func (s Stat) String() string {
	if s.Name == "p" {
		return "p(" + strconv.FormatFloat(s.P, 'f', -1, 64) + ")"
	}
	return s.Name
}

var statNames = map[string]bool{
	"count": true, "rate": true, "value": true, "avg": true, "min": true, "max": true,
	"med": true, "passes": true, "fails": true,
}

// ParseStat reads a stat name: "avg", "p(95)", "p95", "p99.9".
func ParseStat(s string) (Stat, error) {
	s = strings.TrimSpace(s)
	if statNames[s] {
		return Stat{Name: s}, nil
	}
	if rest, ok := strings.CutPrefix(s, "p"); ok {
		if inner, ok := strings.CutPrefix(rest, "("); ok {
			rest, ok = strings.CutSuffix(inner, ")")
			if !ok {
				return Stat{}, fmt.Errorf("stat %q: missing ')'", s)
			}
		}
		n, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
		if err != nil || !(n >= 0 && n <= 100) || strings.ContainsAny(rest, "eEnNiI") {
			return Stat{}, fmt.Errorf("stat %q: percentile must be a number in [0,100]", s)
		}
		return Percentile(n), nil
	}
	return Stat{}, fmt.Errorf("unknown stat %q: use count, rate, value, avg, min, max, med, p(N)", s)
}

// ParseTrendStats reads summaryTrendStats; nil or empty gives DefaultTrendStats.
func ParseTrendStats(names []string) ([]Stat, error) {
	if len(names) == 0 {
		return DefaultTrendStats(), nil
	}
	out := make([]Stat, 0, len(names))
	for _, n := range names {
		st, err := ParseStat(n)
		if err != nil {
			return nil, fmt.Errorf("summaryTrendStats: %w", err)
		}
		if !Trend.Supports(st) {
			return nil, fmt.Errorf("summaryTrendStats: %q is not a trend stat", n)
		}
		out = append(out, st)
	}
	return out, nil
}

// DefaultTrendStats is avg, min, med, max, p(90), p(95), p(99).
func DefaultTrendStats() []Stat {
	return []Stat{{Name: "avg"}, {Name: "min"}, {Name: "med"}, {Name: "max"},
		Percentile(90), Percentile(95), Percentile(99)}
}

// Supports reports whether a threshold or summary may ask a metric of kind k for st.
func (k Kind) Supports(st Stat) bool {
	switch k {
	case Counter:
		return st.Name == "count" || st.Name == "rate"
	case Gauge:
		return st.Name == "value" || st.Name == "min" || st.Name == "max"
	case Rate:
		return st.Name == "rate" || st.Name == "passes" || st.Name == "fails"
	case Trend:
		switch st.Name {
		case "count", "avg", "min", "max", "med", "p":
			return true
		}
	case External:
		// Which of them a metric answers is known only once its source has data.
		return st.Name != "passes" && st.Name != "fails"
	}
	return false
}

// supportedStats lists what Supports accepts, for error messages.
func (k Kind) supportedStats() string {
	switch k {
	case Counter:
		return "count, rate"
	case Gauge:
		return "value, min, max"
	case Rate:
		return "rate"
	case Trend:
		return "avg, min, max, med, p(N), count"
	case External:
		return "count, rate, value, avg, min, max, med, p(N)"
	}
	return "none"
}
