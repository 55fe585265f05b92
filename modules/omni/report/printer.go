package report

import (
	"fmt"
	"strings"
)

// printer builds the text with the reference's primitives: Python's
// `"{s:{c}^{n}}"` headers and `"{:<40} {:<10}"` rows.
type printer struct{ strings.Builder }

// header centres text in width columns; the odd fill character goes right (Python `^`).
func (p *printer) header(text string, fill byte) {
	pad := max(width-len(text), 0)
	f := string(fill)
	p.WriteString(strings.Repeat(f, pad/2) + text + strings.Repeat(f, pad-pad/2) + "\n")
}

// row is `%-40s %-10s`: values of 10+ characters get no trailing space, long labels are not cut.
func (p *printer) row(label, value string) { fmt.Fprintf(p, "%-40s %-10s\n", label, value) }

func (p *printer) intRow(label string, v int) { p.row(label, fmt.Sprint(v)) }

// floatRow is `.2f`; Go and Python round the same way, so values are never pre-rounded.
func (p *printer) floatRow(label string, v float64) { p.row(label, fmt.Sprintf("%.2f", v)) }

// dist prints a metric block: header, Mean, Median, then one row per percentile.
func (p *printer) dist(header, label, unit string, d Dist) {
	p.header(header, '-')
	p.floatRow("Mean "+label+unit+":", d.Mean)
	p.floatRow("Median "+label+unit+":", d.Median)
	for _, pc := range d.Percentiles {
		p.floatRow("P"+percentileLabel(pc.P)+" "+label+unit+":", pc.Value)
	}
}

// distIfAny prints a block only when its list had samples, the rule of every stage block.
func (p *printer) distIfAny(header, label, unit string, d Dist) {
	if d.N > 0 {
		p.dist(header, label, unit, d)
	}
}
