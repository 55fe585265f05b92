package engine

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/fatih/color"
)

// rateWindow is how far back the current rate looks: steady at a few iterations a
// second, quick to follow a ramp.
const rateWindow = 5 * time.Second

// minRateSpan is the shortest span a current rate is shown over.
const minRateSpan = time.Second

// barWidth is the progress bar's width in columns.
const barWidth = 30

// segment is a piece of a progress line and its colour (nil: plain).
type segment struct {
	text string
	c    *color.Color
}

// field is one item of a progress line; fields are cut whole to fit a terminal.
type field []segment

func (f field) width() int {
	n := 0
	for _, s := range f {
		n += utf8.RuneCountInString(s.text)
	}
	return n
}

// progressLine is a line as fields, so that it can be cut to a width without counting
// colour escapes.
type progressLine []field

// fit renders the fields that fit in cols columns (0: all). The first field, the
// scenario and its bar, is always drawn.
func (l progressLine) fit(cols int) string {
	var b strings.Builder
	used := 0
	for i, f := range l {
		w := f.width()
		if i > 0 {
			w += 2
			if cols > 0 && used+w > cols {
				break
			}
			b.WriteString("  ")
		}
		used += w
		for _, s := range f {
			if s.c == nil {
				b.WriteString(s.text)
			} else {
				b.WriteString(s.c.Sprint(s.text))
			}
		}
	}
	return b.String()
}

// mark is a scenario's count of completed iterations at an elapsed time.
type mark struct {
	at time.Duration
	n  int64
}

// line lays out one scenario: where it is, when it ends, its VUs, its iterations, its
// rate and, when counted, its requests. Fields that are zero and rare are left out.
func (p *Progress) line(s ScenarioProgress, nameWidth int) progressLine {
	filled := min(max(int(s.Progress*barWidth), 0), barWidth)
	bar := strings.Repeat("=", filled)
	if filled < barWidth {
		bar += ">" + strings.Repeat("-", barWidth-filled-1)
	}
	stateColor := p.bar
	if s.State == "done" {
		stateColor = p.ok
	}
	l := progressLine{
		{{fmt.Sprintf("%-*s [", nameWidth, s.Name), nil}, {bar, p.bar}, {"] ", nil}, {fmt.Sprintf("%-7s", s.State), stateColor}},
		{{fmt.Sprintf("%s/%s", roundDur(s.Elapsed), roundDur(s.Total)), nil}},
	}
	if left, ok := eta(s); ok {
		l = append(l, field{{"ETA " + roundDur(left).String(), nil}})
	}
	l = append(l, field{{fmt.Sprintf("%d/%d VUs", s.ActiveVUs, s.MaxVUs), nil}},
		field{{fmt.Sprintf("%d ok", s.Completed-s.Failed), nil}},
		p.count(s.Failed, "failed", p.bad))
	if s.Interrupted > 0 {
		l = append(l, p.count(s.Interrupted, "interrupted", p.warn))
	}
	if s.Dropped > 0 {
		l = append(l, p.count(s.Dropped, "dropped", p.bad))
	}
	if r, ok := p.rate(s); ok {
		l = append(l, field{{formatRate(r) + " iters/s", nil}})
	}
	if p.requests != nil {
		ok, failed := p.requests(s.Name)
		f := field{{fmt.Sprintf("requests %d ok ", ok), nil}}
		l = append(l, append(f, p.count(failed, "failed", p.bad)...))
	}
	return l
}

// count is "n what", in colour c when n is not zero.
func (p *Progress) count(n int64, what string, c *color.Color) field {
	if n == 0 {
		c = nil
	}
	return field{{fmt.Sprintf("%d %s", n, what), c}}
}

// rate is completed iterations per second: over the last rateWindow while the scenario
// runs, over all of it once done. It uses the scenarios' own elapsed times, so the lines
// drawn depend on the snapshots alone.
func (p *Progress) rate(s ScenarioProgress) (float64, bool) {
	switch s.State {
	case "done":
		delete(p.rates, s.Name)
		if s.Elapsed <= 0 {
			return 0, false
		}
		return float64(s.Completed) / s.Elapsed.Seconds(), true
	case "running":
	default:
		return 0, false
	}
	m := p.rates[s.Name]
	if m == nil {
		m = []mark{{}} // nothing done at the start
	}
	m = append(m, mark{s.Elapsed, s.Completed})
	// Keep one mark at or before the window's start, as the base.
	for len(m) > 2 && m[1].at <= s.Elapsed-rateWindow {
		m = m[1:]
	}
	p.rates[s.Name] = m
	base := m[0]
	// Under a second in, one iteration would read as a rate it is not (1 in 200 ms: 5/s).
	if dt := s.Elapsed - base.at; dt >= minRateSpan {
		return float64(s.Completed-base.n) / dt.Seconds(), true
	}
	return 0, false
}

// eta is the time left of a running scenario: of its duration or, for iteration-based
// executors, extrapolated from the share done so far. It is unknown before anything is
// done and once the duration is over (gracefulStop).
func eta(s ScenarioProgress) (time.Duration, bool) {
	if s.State != "running" || s.Progress <= 0 || s.Progress >= 1 {
		return 0, false
	}
	left := time.Duration(float64(s.Elapsed) * (1 - s.Progress) / s.Progress)
	if s.Total > 0 {
		left = min(left, s.Total-s.Elapsed)
	}
	return left, true
}

func formatRate(r float64) string {
	switch {
	case r >= 100:
		return fmt.Sprintf("%.0f", r)
	case r >= 10:
		return fmt.Sprintf("%.1f", r)
	}
	return fmt.Sprintf("%.2f", r)
}

func roundDur(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}
