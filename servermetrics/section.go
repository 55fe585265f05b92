package servermetrics

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/omnik-dev/omnik/modules/omni/report"
)

// Section is the Server metrics block of the summary, a metrics.Section.
type Section struct{ Report *Report }

// Name implements metrics.Section: the summary export has it under sections.server.
func (s *Section) Name() string { return "server" }

// JSON implements metrics.Section.
func (s *Section) JSON() any { return s.Report }

// Text implements metrics.Section: the block in the reference's layout, then the
// reconciliation table.
func (s *Section) Text(w io.Writer) error {
	r := s.Report
	var b strings.Builder
	report.WriteHeader(&b, " Server Metrics ", '=')
	report.WriteRow(&b, "Endpoint:", r.URL)
	report.WriteRow(&b, "Pages read:", fmt.Sprint(r.Pages))
	report.WriteRow(&b, "Pages failed:", fmt.Sprint(failedCount(r)))
	for _, k := range sortedKeys(r.Failed) {
		report.WriteRow(&b, fmt.Sprintf("  %s (%d):", k, r.Failed[k]), r.FailedDetail[k])
	}
	if r.Refused > 0 {
		report.WriteRow(&b, "Series left out (over the cap):", fmt.Sprint(r.Refused))
	}
	report.WriteRow(&b, "Window (s):", fmt.Sprintf("%.2f", r.WindowSeconds))
	nw := nameWidth(r)
	if len(r.Gauges) > 0 {
		report.WriteHeader(&b, "Gauges (during the run)", '-')
		fmt.Fprintf(&b, "%-*s %10s %10s\n", nw, "", "Mean", "Max")
		for _, g := range shown(r.Gauges, func(g GaugeRow) (map[string]string, bool) { return g.Selector, g.Max != 0 || g.Min != 0 }) {
			fmt.Fprintf(&b, "%-*s %10.2f %10.2f\n", nw, rowName(g.Family, g.Selector), g.Mean, g.Max)
		}
	}
	if len(r.Counters) > 0 {
		report.WriteHeader(&b, "Counters (over the window)", '-')
		fmt.Fprintf(&b, "%-*s %10s %10s\n", nw, "", "Increase", "Per s")
		for _, c := range shown(r.Counters, func(c CounterRow) (map[string]string, bool) { return c.Selector, c.Increase != 0 }) {
			fmt.Fprintf(&b, "%-*s %10.2f %10.2f\n", nw, rowName(c.Family, c.Selector), c.Increase, c.Rate)
		}
	}
	if len(r.Histograms) > 0 {
		report.WriteHeader(&b, "Histograms (over the window)", '-')
		fmt.Fprintf(&b, "%-*s %8s %8s %8s %8s\n", nw, "", "Count", "Mean", "P50", "P99")
		for _, h := range shown(r.Histograms, func(h HistogramRow) (map[string]string, bool) { return h.Selector, h.Count != 0 }) {
			factor, unit := Scale(h.Family)
			name := rowName(h.Family, h.Selector)
			if len(h.Selector) == 0 {
				name = withUnit(name, unit)
			}
			line := fmt.Sprintf("%-*s %8.0f %8s %8s %8s", nw, name, h.Count, scaled(h.Mean, factor), scaled(h.P50, factor), scaled(h.P99, factor))
			b.WriteString(strings.TrimRight(line, " ") + "\n")
		}
	}
	if len(r.Twins) > 0 {
		writeTwins(&b, r.Twins)
	}
	report.WriteRule(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTwins is the reconciliation: each client metric beside its server twin.
func writeTwins(b *strings.Builder, rows []TwinRow) {
	report.WriteHeader(b, " Client vs Server ", '=')
	fmt.Fprintf(b, "%-16s %-5s %10s %10s %10s  %s\n", "Metric", "Stat", "Client", "Server", "Diff", "Server bucket")
	for _, t := range rows {
		label := t.Metric
		if len(t.Selector) > 0 {
			label += "[" + t.Selector["stage"] + "]"
		}
		label = withUnit(label, t.Unit)
		fmt.Fprintf(b, "%-16s %-5s %10.0f %10.0f\n", label, "n", t.ClientN, t.ServerN)
		for _, st := range t.Stats {
			bucket := ""
			if st.Bucket != nil {
				bucket = fmt.Sprintf("(%g, %g]", st.Bucket[0], st.Bucket[1])
			}
			line := fmt.Sprintf("%-16s %-5s %10s %10s %10s  %s", label, st.Stat, num(st.Client), num(st.Server), num(st.Diff), bucket)
			b.WriteString(strings.TrimRight(line, " ") + "\n")
		}
	}
	b.WriteString("Diff is client - server: what the network, the frontend and the client's\n")
	b.WriteString("read added. Server means are exact (sum / count); its percentiles are\n")
	b.WriteString("interpolated within the bucket shown, their error at most its width.\n")
}

// nameWidth is the tables' first column: 44, or the longest name, so the numbers line up.
func nameWidth(r *Report) int {
	w := 44
	for _, h := range r.Histograms {
		_, unit := Scale(h.Family)
		w = max(w, len(withUnit(h.Family, unit)))
	}
	for _, g := range r.Gauges {
		w = max(w, len(g.Family))
	}
	for _, c := range r.Counters {
		w = max(w, len(c.Family))
	}
	return w
}

func num(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f", *v)
}

func failedCount(r *Report) int {
	n := 0
	for _, v := range r.Failed {
		n += v
	}
	return n
}

// rowName is a family's name, or for a stage's row the stage, indented under it.
func rowName(family string, sel map[string]string) string {
	if len(sel) == 0 {
		return family
	}
	return "  " + Selection(sel)
}

// shown keeps each family's row and, under it, its stages' rows when at least two
// stages did something: one active stage says what the family's row says, and idle
// stages (the engine families of models the run did not use) say nothing.
func shown[R any](rows []R, of func(R) (sel map[string]string, active bool)) []R {
	var out, stages []R
	active := 0
	flush := func() {
		if active >= 2 {
			for _, st := range stages {
				if _, ok := of(st); ok {
					out = append(out, st)
				}
			}
		}
		stages, active = stages[:0], 0
	}
	for _, row := range rows {
		sel, ok := of(row)
		if len(sel) == 0 {
			flush()
			out = append(out, row)
			continue
		}
		stages = append(stages, row)
		if ok {
			active++
		}
	}
	flush()
	return out
}

func scaled(v *float64, factor float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f", *v*factor)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
