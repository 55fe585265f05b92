package compare

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/fatih/color"
)

// TextOptions shape the text table.
type TextOptions struct {
	NoColor bool
}

// WriteText renders the comparison for a terminal: which files, then one aligned table
// of every row, group by group, each change green when it is an improvement and red
// when a regression, then the gates' verdicts.
func (c *Comparison) WriteText(w io.Writer, gates []GateResult, o TextOptions) error {
	p := &painter{green: color.New(color.FgGreen), red: color.New(color.FgRed)}
	for _, col := range []*color.Color{p.green, p.red} {
		// Per-object switches keep a comparison free of fatih/color's global state.
		if o.NoColor {
			col.DisableColor()
		} else {
			col.EnableColor()
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "BASE  %s (%s)\nNEW   %s (%s)\n", c.Base.Path, c.Base.Format, c.New.Path, c.New.Format)
	cells := make([][5]string, len(c.Rows))
	width := [5]int{0, len("BASE"), len("NEW"), 0, 0}
	for i, r := range c.Rows {
		cells[i] = r.cells()
		for j, s := range cells[i] {
			width[j] = max(width[j], len([]rune(s)))
		}
	}
	change := max(len("CHANGE"), width[3]+1+width[4])
	width[3] = change - 1 - width[4]
	fmt.Fprintf(&b, "\n  %-*s  %*s  %*s  %*s\n", width[0], "", width[1], "BASE", width[2], "NEW", change, "CHANGE")
	for i, r := range c.Rows {
		if i == 0 || r.Group != c.Rows[i-1].Group {
			fmt.Fprintf(&b, "%s\n", r.Group)
		}
		cl := cells[i]
		paint := p.paint(r.Verdict())
		line := fmt.Sprintf("  %s  %s  %s  %s %s", pad(cl[0], -width[0]), pad(cl[1], width[1]), pad(cl[2], width[2]),
			paint(pad(cl[3], width[3])), paint(pad(cl[4], width[4])))
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	if len(gates) > 0 {
		b.WriteString("\nGATES\n")
		source := 0
		for _, g := range gates {
			source = max(source, len([]rune(g.Gate.Source)))
		}
		for _, g := range gates {
			mark, paint := "✓", p.green.Sprint
			if g.Crossed {
				mark, paint = "✗", p.red.Sprint
			}
			fmt.Fprintf(&b, "  %s %s  %s\n", paint(mark), pad(g.Gate.Source, -source), g.detail())
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

type painter struct{ green, red *color.Color }

func (p *painter) paint(v Verdict) func(...any) string {
	switch v {
	case Improved:
		return p.green.Sprint
	case Regressed:
		return p.red.Sprint
	}
	return fmt.Sprint
}

// cells are a row's key, values and change as printed.
func (r Row) cells() [5]string {
	suffix := ""
	if r.Group.Section == Metrics {
		// METRICS keys do not carry their unit as vLLM's field names do.
		suffix = string(r.Unit)
	}
	value := func(v *float64) string {
		if v == nil {
			return "—"
		}
		return formatNumber(*v) + suffix
	}
	abs, rel, ok := r.Change()
	cl := [5]string{r.Key, value(r.Base), value(r.New), "—", ""}
	switch {
	case ok && abs == 0:
		cl[3] = "="
	case ok:
		cl[3], cl[4] = signed(abs)+suffix, "("+percent(rel)+")"
	}
	return cl
}

// detail says what a gate compared.
func (g GateResult) detail() string {
	r := g.Row
	switch {
	case g.NoData && r.Base == nil && r.New == nil:
		return "no data: neither run has it"
	case g.NoData && r.New == nil:
		return "no data: NEW has none"
	case g.NoData:
		return "no data: BASE has none"
	}
	cl := r.cells()
	switch {
	case g.Gate.Mode == Absolute:
		return "NEW " + cl[2]
	case *r.Base == *r.New:
		return cl[1] + " → " + cl[2] + ", no change"
	}
	return strings.TrimSpace(fmt.Sprintf("%s → %s, change %s %s", cl[1], cl[2], cl[3], cl[4]))
}

// String is the gate and what it compared, for logs.
func (g GateResult) String() string { return g.Gate.Source + ": " + g.detail() }

// formatNumber prints integers whole, others with two decimals as vLLM's blocks do, and
// numbers below 1 with four significant digits, so a failure rate of 0.0012 shows.
func formatNumber(v float64) string {
	switch a := math.Abs(v); {
	case v == math.Trunc(v) && a < 1e15:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

func signed(v float64) string {
	if v < 0 {
		return "-" + formatNumber(-v)
	}
	return "+" + formatNumber(v)
}

func percent(rel float64) string {
	if math.IsInf(rel, 0) {
		return signed(rel)[:1] + "inf%"
	}
	return fmt.Sprintf("%+.1f%%", rel)
}

// pad right-aligns s in width, or left-aligns it in -width, counting runes ("—").
func pad(s string, width int) string {
	n := len([]rune(s))
	switch {
	case width < 0 && n < -width:
		return s + strings.Repeat(" ", -width-n)
	case width > 0 && n < width:
		return strings.Repeat(" ", width-n) + s
	}
	return s
}
