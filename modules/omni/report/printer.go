package report

import (
	"fmt"
	"strings"
)

// printer builds the text with the reference's primitives: Python's
// `"{s:{c}^{n}}"` headers and `"{:<40} {:<10}"` rows. It also keeps what it wrote as
// lines, which the A/B block lines up across targets (abblock.go).
type printer struct {
	strings.Builder
	lines []line
}

// line is one header or row as written: the A/B block prints its own columns from it.
type line struct {
	fill  byte // '=' or '-' for a header; 0 for a row
	text  string
	kind  valueKind
	value float64
}

// valueKind says how a row's number is printed.
type valueKind int

const (
	valueInt     valueKind = iota // %d
	valueFloat                    // %.2f
	valuePercent                  // value·100 as %.2f%%
	valueText                     // not a number: the A/B block leaves it out
)

func (k valueKind) format(v float64) string {
	switch k {
	case valueInt:
		return fmt.Sprint(int64(v))
	case valuePercent:
		return fmt.Sprintf("%.2f%%", v*100)
	}
	return fmt.Sprintf("%.2f", v)
}

// header centres text in width columns; the odd fill character goes right (Python `^`).
func (p *printer) header(text string, fill byte) {
	WriteHeader(&p.Builder, text, fill)
	p.lines = append(p.lines, line{fill: fill, text: text})
}

// row is `%-40s %-10s`: values of 10+ characters get no trailing space, long labels are not cut.
func (p *printer) row(label, value string) {
	WriteRow(&p.Builder, label, value)
	p.lines = append(p.lines, line{text: label, kind: valueText})
}

// WriteHeader writes a block header in the reference's layout: text centred in its 50
// columns, the odd fill character going right (Python's `^`). Other packages' blocks
// (the Server metrics block) look like the reference's through it.
func WriteHeader(b *strings.Builder, text string, fill byte) { writeHeaderIn(b, text, fill, width) }

// writeHeaderIn centres text in n columns, as WriteHeader does in the reference's 50.
func writeHeaderIn(b *strings.Builder, text string, fill byte, n int) {
	pad := max(n-len(text), 0)
	f := string(fill)
	b.WriteString(strings.Repeat(f, pad/2) + text + strings.Repeat(f, pad-pad/2) + "\n")
}

// WriteRow writes a row in the reference's `{:<40} {:<10}`.
func WriteRow(b *strings.Builder, label, value string) { fmt.Fprintf(b, "%-40s %-10s\n", label, value) }

// WriteRule writes the line that closes a block.
func WriteRule(b *strings.Builder) { b.WriteString(strings.Repeat("=", width) + "\n") }

// number writes a numeric row and keeps its value.
func (p *printer) number(label string, kind valueKind, v float64) {
	WriteRow(&p.Builder, label, kind.format(v))
	p.lines = append(p.lines, line{text: label, kind: kind, value: v})
}

func (p *printer) intRow(label string, v int64) { p.number(label, valueInt, float64(v)) }

// floatRow is `.2f`; Go and Python round the same way, so values are never pre-rounded.
func (p *printer) floatRow(label string, v float64) { p.number(label, valueFloat, v) }

func (p *printer) percentRow(label string, v float64) { p.number(label, valuePercent, v) }

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
