package compare

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/metrics"
)

// Gate is one --fail-on expression, KEY OP VALUE: the comparison fails (exit 99) when it
// holds. VALUE unsigned is NEW's value ("requests_failed.rate > 0.01"), signed the
// change NEW−BASE ("ttft.p99 > +50ms"), a signed percentage the relative change
// ("ttft.p99 > +10%"). docs/report.md.
type Gate struct {
	Source string     // the expression as written
	Key    string     // the statistic, its aggregation written as the table writes it
	Op     metrics.Op // >, >=, < or <=
	Mode   Mode
	// Value is in TimeUnit when the gate gives one, else in the statistic's unit; a
	// percentage for Relative.
	Value    float64
	TimeUnit string // "ms", "s", "us", "µs" or ""
}

// Mode is what a gate compares with its value.
type Mode int

// The modes, by how the value is written.
const (
	Absolute Mode = iota // 0.01: NEW's value
	Change               // +50, -5: NEW−BASE
	Relative             // +10%, -5%: (NEW−BASE)/|BASE| in percent
)

// toMillis converts a gate's time unit to milliseconds.
var toMillis = map[string]float64{"ms": 1, "s": 1000, "us": 1e-3, "µs": 1e-3}

// GateError is a --fail-on expression that does not parse; the CLI exits 104 on it.
type GateError struct {
	Expr   string
	Col    int // 1-based, in bytes
	Reason string
}

func (e *GateError) Error() string {
	return fmt.Sprintf("--fail-on %q at col %d: %s", e.Expr, e.Col, e.Reason)
}

// ExitCode makes a gate that does not parse a usage error.
func (e *GateError) ExitCode() engine.ExitCode { return engine.ExitInvalidConfig }

// ParseGate reads KEY OP VALUE: OP is >, >=, < or <=; VALUE a number, signed for a
// change, with % for a relative change or a time unit (ms, s, us) for a time.
func ParseGate(expr string) (Gate, error) {
	sc := &gateScanner{s: expr}
	g := Gate{Source: expr}
	sc.space()
	key, err := sc.key()
	if err != nil {
		return Gate{}, err
	}
	g.Key = normalizeKey(key)
	sc.space()
	if g.Op, err = sc.op(); err != nil {
		return Gate{}, err
	}
	sc.space()
	if err := sc.value(&g); err != nil {
		return Gate{}, err
	}
	sc.space()
	if sc.i < len(sc.s) {
		return Gate{}, sc.fail(sc.i, fmt.Sprintf("unexpected %q after the value", sc.s[sc.i:]))
	}
	return g, nil
}

// gateScanner walks one expression.
type gateScanner struct {
	s string
	i int
}

func (sc *gateScanner) fail(at int, reason string) error {
	return &GateError{Expr: sc.s, Col: min(at, max(len(sc.s)-1, 0)) + 1, Reason: reason}
}

func (sc *gateScanner) space() {
	for sc.i < len(sc.s) && (sc.s[sc.i] == ' ' || sc.s[sc.i] == '\t') {
		sc.i++
	}
}

// key reads up to the operator; a selector's braces may hold anything but '}'.
func (sc *gateScanner) key() (string, error) {
	start := sc.i
	for sc.i < len(sc.s) && !strings.ContainsRune(" \t<>=!", rune(sc.s[sc.i])) {
		if sc.s[sc.i] == '{' {
			end := strings.IndexByte(sc.s[sc.i:], '}')
			if end < 0 {
				return "", sc.fail(sc.i, "missing '}' after the selector")
			}
			sc.i += end
		}
		sc.i++
	}
	if sc.i == start {
		return "", sc.fail(sc.i, "expected a statistic's key (ttft.p99, serving.mean_ttft_ms: omnik compare prints them)")
	}
	return sc.s[start:sc.i], nil
}

func (sc *gateScanner) op() (metrics.Op, error) {
	for _, o := range []metrics.Op{metrics.OpGE, metrics.OpLE, metrics.OpGT, metrics.OpLT} {
		if strings.HasPrefix(sc.s[sc.i:], string(o)) {
			sc.i += len(o)
			return o, nil
		}
	}
	return "", sc.fail(sc.i, "expected an operator: >, >=, < or <=")
}

// value reads [+|-]NUMBER[%|ms|s|us|µs].
func (sc *gateScanner) value(g *Gate) error {
	start := sc.i
	signed := sc.i < len(sc.s) && (sc.s[sc.i] == '+' || sc.s[sc.i] == '-')
	if signed {
		sc.i++
	}
	digits := sc.i
	sc.span("0123456789.")
	if sc.i > digits && sc.i < len(sc.s) && (sc.s[sc.i] == 'e' || sc.s[sc.i] == 'E') {
		exp := sc.i
		sc.i++
		if sc.i < len(sc.s) && (sc.s[sc.i] == '+' || sc.s[sc.i] == '-') {
			sc.i++
		}
		if sc.span("0123456789") == 0 {
			sc.i = exp // "5ms" starts no exponent, nor does "5e"
		}
	}
	v, err := strconv.ParseFloat(sc.s[start:sc.i], 64)
	if sc.i == digits || err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return sc.fail(start, "the number is out of range")
		}
		return sc.fail(start, "expected a number: 0.01 (NEW's value), +50 (the change) or +10% (the relative change)")
	}
	g.Value = v
	if signed {
		g.Mode = Change
	}
	unit := sc.i
	for sc.i < len(sc.s) && sc.s[sc.i] != ' ' && sc.s[sc.i] != '\t' {
		sc.i++
	}
	switch suffix := sc.s[unit:sc.i]; {
	case suffix == "%" && signed:
		g.Mode = Relative
	case suffix == "%":
		return sc.fail(unit, "a percentage is a relative change and takes a sign: +10% or -5%")
	case suffix == "":
	case toMillis[suffix] != 0:
		g.TimeUnit = suffix
	default:
		return sc.fail(unit, fmt.Sprintf("unknown unit %q: use ms, s or us (times), or %% (a relative change)", suffix))
	}
	return nil
}

// span skips the bytes in set and says how many.
func (sc *gateScanner) span(set string) int {
	from := sc.i
	for sc.i < len(sc.s) && strings.IndexByte(set, sc.s[sc.i]) >= 0 {
		sc.i++
	}
	return sc.i - from
}
