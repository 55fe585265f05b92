package report

import (
	"fmt"
	"strings"
)

// printer builds the text with the reference's primitives: Python's
// `"{s:{c}^{n}}"` headers and `"{:<40} {:<10}"` rows.
type printer struct{ strings.Builder }

// header centres text in width columns; the odd fill character goes right (Python `^`).
func (p *printer) header(text string, fill byte) { WriteHeader(&p.Builder, text, fill) }

// row is `%-40s %-10s`: values of 10+ characters get no trailing space, long labels are not cut.
func (p *printer) row(label, value string) { WriteRow(&p.Builder, label, value) }

// WriteHeader writes a block header in the reference's layout: text centred in its 50
// columns, the odd fill character going right (Python's `^`). Other packages' blocks
// (the Server metrics block) look like the reference's through it.
func WriteHeader(b *strings.Builder, text string, fill byte) {
	pad := max(width-len(text), 0)
	f := string(fill)
	b.WriteString(strings.Repeat(f, pad/2) + text + strings.Repeat(f, pad-pad/2) + "\n")
}

// WriteRow writes a row in the reference's `{:<40} {:<10}`.
func WriteRow(b *strings.Builder, label, value string) { fmt.Fprintf(b, "%-40s %-10s\n", label, value) }

// WriteRule writes the line that closes a block.
func WriteRule(b *strings.Builder) { b.WriteString(strings.Repeat("=", width) + "\n") }

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
