package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// abTable is the A/B block: the Serving Benchmark Result rows of each target side by
// side, the baseline's first, each other target's followed by its difference from the
// baseline, then the paired differences of the mirrored calls. Rows are the ones Render
// prints, taken from the printer's lines, so the two can never list different rows.
type abTable struct {
	names  []string // targets, the baseline first
	keys   []string // every line any target printed, in order
	lines  map[string]line
	values []map[string]line // by target, by key
	// results and paired are what the rows came from, for the JSON view.
	results []targetResult
	paired  []pairedResult
}

// abKey names a line within its section: "Peak concurrent requests:" is a Serving row
// and a Text Result row.
func abKey(section string, l line) string { return section + "\x00" + string(l.fill) + l.text }

func newABTable(results []targetResult, paired []pairedResult, metrics []string) *abTable {
	t := &abTable{lines: map[string]line{}, results: results, paired: paired}
	for _, tr := range results {
		var p printer
		p.serving(tr.result, selectMetrics(tr.result, metrics))
		values := map[string]line{}
		section, prev := "", -1
		for _, l := range p.lines {
			if l.fill == '=' {
				section = l.text
			}
			k := abKey(section, l)
			values[k] = l
			// A line this target has and earlier ones lack goes after its predecessor.
			if i := slices.Index(t.keys, k); i >= 0 {
				prev = i
				continue
			}
			prev++
			t.keys = slices.Insert(t.keys, prev, k)
			t.lines[k] = l
		}
		t.names = append(t.names, tr.name)
		t.values = append(t.values, values)
	}
	return t
}

// abMinColumn is the reference's value column: 10 wide.
const abMinColumn = 10

// columns are the table's column titles after the label.
func (t *abTable) columns() []string {
	cols := []string{t.names[0]}
	for _, n := range t.names[1:] {
		cols = append(cols, n, "Δ", "Δ%")
	}
	return cols
}

func (t *abTable) render(w io.Writer) error {
	cols := t.columns()
	widths := make([]int, len(cols))
	total := 40
	for i, c := range cols {
		widths[i] = max(abMinColumn, utf8.RuneCountInString(c))
		total += 1 + widths[i]
	}
	var b strings.Builder
	row := func(label string, cells []string) {
		b.WriteString(pad(label, 40))
		for i, c := range cells {
			b.WriteString(" " + pad(c, widths[i]))
		}
		b.WriteString("\n")
	}
	writeHeaderIn(&b, " A/B Benchmark Result ", '=', total)
	WriteRow(&b, "Baseline:", t.names[0]+" (Δ = target − baseline, Δ% = Δ / baseline)")
	row("", cols)
	for _, k := range t.keys {
		l := t.lines[k]
		if l.fill != 0 {
			writeHeaderIn(&b, l.text, l.fill, total)
			continue
		}
		if l.kind == valueText {
			continue
		}
		base, hasBase := t.values[0][k]
		cells := []string{cell(base, hasBase)}
		for _, values := range t.values[1:] {
			v, has := values[k]
			cells = append(cells, cell(v, has))
			d, pct := "-", "-"
			if has && hasBase {
				d, pct = delta(l.kind, base.value, v.value)
			}
			cells = append(cells, d, pct)
		}
		row(l.text, cells)
	}
	for _, pr := range t.paired {
		writePaired(&b, pr, total)
	}
	b.WriteString(strings.Repeat("=", total) + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func cell(l line, ok bool) string {
	if !ok {
		return "-"
	}
	return l.kind.format(l.value)
}

// delta is v − base in the row's own format, and the same relative to base ("-" when
// base is 0: no change is a percentage of nothing).
func delta(kind valueKind, base, v float64) (abs, rel string) {
	d := v - base
	switch kind {
	case valueInt:
		abs = fmt.Sprintf("%+d", int64(d))
	case valuePercent:
		abs = fmt.Sprintf("%+.2fpp", d*100) // percentage points: Δ% is the relative change
	default:
		abs = fmt.Sprintf("%+.2f", d)
	}
	if base == 0 {
		return abs, "-"
	}
	return abs, fmt.Sprintf("%+.2f%%", d/math.Abs(base)*100)
}

// pad is %-*s counting characters, not bytes: target names and Δ are not ASCII.
func pad(s string, n int) string {
	return s + strings.Repeat(" ", max(n-utf8.RuneCountInString(s), 0))
}

// writePaired prints the paired differences of one target's mirrored calls under a
// header n wide.
func writePaired(b *strings.Builder, pr pairedResult, n int) {
	writeHeaderIn(b, fmt.Sprintf("Paired: %s - %s, mirrored calls", pr.Target, pr.Baseline), '-', n)
	WriteRow(b, "Pairs compared:", fmt.Sprint(pr.Pairs))
	WriteRow(b, "Pairs with a failed side (excluded):", fmt.Sprint(pr.Excluded))
	for _, d := range pr.Metrics {
		WriteRow(b, "Mean "+d.Label+" difference (ms):", fmt.Sprintf("%+.2f", d.Mean))
		median := fmt.Sprintf("%+.2f", d.Median)
		if d.HasCI {
			median += fmt.Sprintf(" (95%% CI %+.2f to %+.2f)", d.CILow, d.CIHigh)
		}
		WriteRow(b, "Median "+d.Label+" difference (ms):", median)
		WriteRow(b, d.Label+" of "+pr.Target+" lower/higher/tied:", fmt.Sprintf("%d/%d/%d, sign test p = %s", d.Below, d.Above, d.Ties, pValue(d.SignP)))
	}
}

// pValue prints p with 2 significant digits; one below float64's range prints as a bound.
func pValue(p float64) string {
	if p < 1e-300 {
		return "< 1e-300"
	}
	return fmt.Sprintf("%.2g", p)
}

// json is the A/B view as the summary's JSON has it: each target's --save-result object
// and, per target with mirrored calls, its paired differences from the baseline.
func (t *abTable) json(info RunInfo, metrics []string) map[string]any {
	results := map[string]any{}
	for _, tr := range t.results {
		results[tr.name] = SaveResult(tr.result, info, metrics)
	}
	paired := map[string]any{}
	for _, pr := range t.paired {
		m := map[string]any{"pairs": pr.Pairs, "excluded": pr.Excluded}
		for _, d := range pr.Metrics {
			v := map[string]any{"n": d.N, "mean_ms": d.Mean, "median_ms": d.Median,
				"lower": d.Below, "higher": d.Above, "tied": d.Ties, "sign_test_p": d.SignP}
			if d.HasCI {
				v["median_ci95_ms"] = []float64{d.CILow, d.CIHigh}
			}
			if d.ErrorBound > 0 {
				v["percentile_error_bound"] = d.ErrorBound
			}
			m[d.Name] = v
		}
		paired[pr.Target] = m
	}
	return map[string]any{"baseline": t.names[0], "targets": results, "paired": paired}
}
