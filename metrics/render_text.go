package metrics

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/fatih/color"
)

// WriteText renders the summary for a terminal: thresholds, checks, the extra sections,
// one line per metric, then the warnings. Colors are off when s.Options.NoColor is set.
func (s *Summary) WriteText(w io.Writer) error {
	r := &textRenderer{s: s, w: &errWriter{w: w}}
	r.green, r.red, r.yellow, r.faint = color.New(color.FgGreen), color.New(color.FgRed), color.New(color.FgYellow), color.New(color.Faint)
	for _, c := range []*color.Color{r.green, r.red, r.yellow, r.faint} {
		// Per-object switches keep a run free of fatih/color's global state.
		if s.Options.NoColor {
			c.DisableColor()
		} else {
			c.EnableColor()
		}
	}
	r.thresholds()
	r.checks()
	for _, sec := range s.Sections {
		if r.w.err == nil {
			r.w.err = sec.Text(r.w)
		}
		r.printf("\n")
	}
	r.metrics()
	for _, w := range s.Warnings {
		r.printf("  %s\n\n", r.yellow.Sprint(w))
	}
	return r.w.err
}

// errWriter keeps the first write error so rendering code stays linear.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	var n int
	n, e.err = e.w.Write(p)
	return n, e.err
}

type textRenderer struct {
	s                         *Summary
	w                         *errWriter
	green, red, yellow, faint *color.Color
}

func (r *textRenderer) printf(format string, args ...any) { fmt.Fprintf(r.w, format, args...) }

func (r *textRenderer) mark(ok bool) string {
	if ok {
		return r.green.Sprint("✓")
	}
	return r.red.Sprint("✗")
}

func (r *textRenderer) thresholds() {
	if len(r.s.Thresholds) == 0 {
		return
	}
	r.printf("  THRESHOLDS\n\n")
	last := ""
	for _, t := range r.s.Thresholds {
		if t.Metric != last {
			r.printf("    %s\n", t.Metric)
			last = t.Metric
		}
		observed := "no data"
		if t.Observed != nil {
			ms := r.s.Metrics[t.Metric]
			observed = r.format(*t.Observed, ms, t.Stat == "count" || t.Stat == "rate")
		}
		r.printf("    %s %s  %s\n", r.mark(t.OK), t.Expression, r.faint.Sprint(observed))
	}
	r.printf("\n")
}

func (r *textRenderer) checks() {
	if len(r.s.Checks) == 0 {
		return
	}
	r.printf("  CHECKS\n\n")
	r.group(r.s.RootGroup, "    ")
	r.printf("\n")
}

func (r *textRenderer) group(g *GroupSummary, indent string) {
	for _, c := range g.Checks {
		rate := float64(c.Passes) / float64(max(c.Passes+c.Fails, 1)) * 100
		r.printf("%s%s %s  %s\n", indent, r.mark(c.Fails == 0), c.Name,
			r.faint.Sprintf("%.2f%%  %d passes  %d fails", rate, c.Passes, c.Fails))
	}
	for _, sub := range g.Groups {
		if hasChecks(sub) {
			r.printf("%s█ %s\n", indent, sub.Name)
			r.group(sub, indent+"  ")
		}
	}
}

func hasChecks(g *GroupSummary) bool {
	if len(g.Checks) > 0 {
		return true
	}
	for _, s := range g.Groups {
		if hasChecks(s) {
			return true
		}
	}
	return false
}

func (r *textRenderer) metrics() {
	names := make([]string, 0, len(r.s.Metrics))
	width := 0
	for n, ms := range r.s.Metrics {
		if ms.quiet && len(ms.Thresholds) == 0 {
			continue
		}
		names = append(names, n)
		width = max(width, len(n)+2)
	}
	if len(names) == 0 {
		return
	}
	sortUnderParents(names)
	r.printf("  METRICS\n\n")
	approx := false
	for _, n := range names {
		ms := r.s.Metrics[n]
		label := n
		if i := strings.IndexByte(n, '{'); i > 0 {
			label = "  " + n[i:]
		}
		mark := " "
		if ms.Approximate {
			mark, approx = "~", true
		}
		r.printf("   %s%s%s %s\n", mark, label, r.faint.Sprint(strings.Repeat(".", width-len(label))+":"), r.values(ms))
	}
	if approx {
		r.printf("\n    ~ percentiles from an HDR histogram, relative error ≤ %.3f%%\n", HDRRelativeError*100)
	}
	r.printf("\n")
}

// sortUnderParents sorts metric names with each sub-metric ("e2el{scenario:s}") right
// under its parent: by the parent's name first, so "e2el_intended" cannot come between.
func sortUnderParents(names []string) {
	sort.Slice(names, func(i, j int) bool {
		pi, si, _ := strings.Cut(names[i], "{")
		pj, sj, _ := strings.Cut(names[j], "{")
		if pi != pj {
			return pi < pj
		}
		return si < sj
	})
}

func (r *textRenderer) values(ms *MetricSummary) string {
	v := ms.Values
	if len(v) == 0 {
		return "no data"
	}
	switch ms.Type {
	case "counter":
		return fmt.Sprintf("%s %s/s", r.format(v["count"], ms, false), r.format(v["rate"], ms, false))
	case "gauge":
		return fmt.Sprintf("%s min=%s max=%s", r.format(v["value"], ms, false), r.format(v["min"], ms, false), r.format(v["max"], ms, false))
	case "rate":
		return fmt.Sprintf("%.2f%% %d out of %d", v["rate"]*100, int64(v["passes"]), int64(v["passes"]+v["fails"]))
	}
	parts := make([]string, 0, len(r.s.Options.TrendStats))
	for _, st := range r.s.Options.TrendStats {
		if x, ok := v[st.String()]; ok {
			parts = append(parts, st.String()+"="+r.format(x, ms, st.Name == "count"))
		}
	}
	return strings.Join(parts, " ")
}

// format prints a value in the metric's unit; plain forces a unitless number (counts,
// rates of a time metric's threshold).
func (r *textRenderer) format(x float64, ms *MetricSummary, plain bool) string {
	if ms == nil || plain {
		return number(x)
	}
	switch ms.Contains {
	case "time":
		switch r.s.Options.TimeUnit {
		case "s":
			return strconv.FormatFloat(x/1000, 'f', 2, 64) + "s"
		case "us":
			return strconv.FormatFloat(x*1000, 'f', 2, 64) + "µs"
		}
		return strconv.FormatFloat(x, 'f', 2, 64) + "ms"
	case "data":
		return bytesString(x)
	}
	return number(x)
}

func number(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}

func bytesString(x float64) string {
	units := []string{"B", "kB", "MB", "GB", "TB"}
	i := 0
	for math.Abs(x) >= 1000 && i < len(units)-1 {
		x /= 1000
		i++
	}
	if i == 0 {
		return number(x) + " " + units[0]
	}
	return strconv.FormatFloat(x, 'f', 1, 64) + " " + units[i]
}
