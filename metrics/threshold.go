package metrics

import (
	"fmt"
	"time"
)

// Op is a threshold comparison.
type Op string

// The threshold operators; "===" parses as OpEq.
const (
	OpLT Op = "<"
	OpLE Op = "<="
	OpGT Op = ">"
	OpGE Op = ">="
	OpEq Op = "=="
	OpNE Op = "!="
)

// Holds reports whether a o b: a threshold passes, a compare gate is crossed.
func (o Op) Holds(a, b float64) bool {
	switch o {
	case OpLT:
		return a < b
	case OpLE:
		return a <= b
	case OpGT:
		return a > b
	case OpGE:
		return a >= b
	case OpEq:
		return a == b
	case OpNE:
		return a != b
	}
	return false
}

// Threshold is one parsed pass/fail criterion, whichever spelling it came from.
type Threshold struct {
	// Source is the expression as the user wrote it: "p(99) < 900" or "ttfc.p99 < 900".
	Source   string
	Metric   *Metric
	Selector *TagSet // nil for the whole metric
	Stat     Stat
	Op       Op
	Value    float64
	// AbortOnFail stops the run at the first failing evaluation once the run is at least
	// DelayAbortEval old.
	AbortOnFail    bool
	DelayAbortEval time.Duration
}

// SinkName is the metric or canonical sub-metric name the threshold reads.
func (t *Threshold) SinkName() string { return SubMetricName(t.Metric.Name, t.Selector) }

// String is the canonical form, "ttft{stage:thinker}.p(95) <= 500".
func (t *Threshold) String() string {
	return fmt.Sprintf("%s.%s %s %g", t.SinkName(), t.Stat, t.Op, t.Value)
}

// ThresholdError is a threshold that cannot be used; the CLI exits 104 on it.
type ThresholdError struct {
	Expr   string // the expression or metric key as written
	Metric string // the thresholds key, when Expr is a k6-style expression under it
	Col    int    // 1-based column in Expr
	Reason string
}

func (e *ThresholdError) Error() string {
	of := ""
	if e.Metric != "" {
		of = fmt.Sprintf(" on %q", e.Metric)
	}
	return fmt.Sprintf("threshold %q%s at col %d: %s", e.Expr, of, e.Col, e.Reason)
}
