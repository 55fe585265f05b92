package engine

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/fatih/color"
	"golang.org/x/term"
)

// ScenarioProgress is a snapshot of one scenario for progress displays.
type ScenarioProgress struct {
	Name        string        `json:"name"`
	Executor    string        `json:"executor"`
	State       string        `json:"state"` // "waiting", "running" or "done"
	ActiveVUs   int64         `json:"activeVUs"`
	MaxVUs      int64         `json:"maxVUs"`
	Completed   int64         `json:"completed"`
	Failed      int64         `json:"failed"` // of the completed ones, those that threw
	Interrupted int64         `json:"interrupted"`
	Dropped     int64         `json:"dropped"`
	Elapsed     time.Duration `json:"elapsed"`
	Total       time.Duration `json:"total"`
	Progress    float64       `json:"progress"` // 0..1
	// Started is when the scenario began (with the monotonic clock); zero while waiting.
	Started time.Time `json:"-"`
	// ScheduleEnded is when an arrival-rate scenario's schedule ended: its duration ran
	// out, it was stopped, or its last iteration was started. Zero for the other
	// executors and before. A benchmark of the scenario lasts at least until then.
	ScheduleEnded time.Time `json:"-"`
}

// Progress returns a snapshot of every scenario, in plan order.
func (r *Run) Progress() []ScenarioProgress {
	out := make([]ScenarioProgress, len(r.scenarios))
	for i, s := range r.scenarios {
		p := ScenarioProgress{
			Name: s.plan.Name, Executor: s.plan.Executor, State: "waiting",
			ActiveVUs: s.active.Load(), MaxVUs: s.plan.MaxVUs,
			Completed: s.completed.Load(), Failed: s.failed.Load(), Interrupted: s.interrupted.Load(),
			Dropped: s.dropped.Load(), Total: s.plan.Duration.D(),
		}
		if at := s.scheduleEnded.Load(); at != nil {
			p.ScheduleEnded = *at
		}
		if s.started.Load() != 0 {
			// startAt is written before started is stored, so it is safe to read now.
			p.State, p.Elapsed, p.Progress, p.Started = "running", s.elapsed(), s.progress(), s.startAt
		}
		if s.finished.Load() {
			p.State, p.Progress = "done", 1
		}
		out[i] = p
	}
	return out
}

// Progress draws one line per scenario: redrawn in place on a terminal, and cut to its
// width so each line stays one row; printed as plain periodic lines otherwise. It is
// driven by one goroutine (the run's), not concurrently.
type Progress struct {
	w                  io.Writer
	fd                 int // the terminal's, to read its width; -1 when unknown
	tty, noColor       bool
	interval           time.Duration
	width              int // columns a line may take; 0: the terminal's, or unlimited
	lines              int // lines drawn last time, to move back over them
	bar, ok, warn, bad *color.Color
	rates              map[string][]mark // recent counts per scenario, for the current rate
	requests           func(scenario string) (ok, failed int64)
}

// ProgressOption configures a Progress.
type ProgressOption func(*Progress)

// ProgressNoColor disables colours (--no-color, options.noColor). NO_COLOR in the
// environment and a writer that is not a terminal disable them too.
func ProgressNoColor(noColor bool) ProgressOption { return func(p *Progress) { p.noColor = noColor } }

// ProgressTerminal overrides terminal detection.
func ProgressTerminal(tty bool) ProgressOption { return func(p *Progress) { p.tty = tty } }

// ProgressInterval sets how often lines are drawn.
func ProgressInterval(d time.Duration) ProgressOption { return func(p *Progress) { p.interval = d } }

// ProgressWidth sets the columns a terminal line may take, instead of the terminal's.
func ProgressWidth(cols int) ProgressOption { return func(p *Progress) { p.width = cols } }

// ProgressRequests adds each scenario's finished requests, ok and failed, to its line:
// the engine runs iterations and knows nothing of requests, so whoever does counts them.
func ProgressRequests(count func(scenario string) (ok, failed int64)) ProgressOption {
	return func(p *Progress) { p.requests = count }
}

// NewProgress returns a Progress writing to w. On a terminal it redraws every 200 ms;
// elsewhere (CI logs) it prints every 10 s, so logs stay short.
func NewProgress(w io.Writer, opts ...ProgressOption) *Progress {
	p := &Progress{w: w, fd: -1, rates: map[string][]mark{}}
	if f, isFile := w.(interface{ Fd() uintptr }); isFile {
		p.fd = int(f.Fd())
		p.tty = term.IsTerminal(p.fd)
	}
	for _, o := range opts {
		o(p)
	}
	if p.interval == 0 {
		p.interval = 10 * time.Second
		if p.tty {
			p.interval = 200 * time.Millisecond
		}
	}
	on := p.tty && !p.noColor && os.Getenv("NO_COLOR") == ""
	p.bar, p.ok, p.warn, p.bad = newColor(color.FgCyan, on), newColor(color.FgGreen, on), newColor(color.FgYellow, on), newColor(color.FgRed, on)
	return p
}

// newColor sets colour per object rather than through fatih/color's global NoColor,
// which looks at stdout, not at the writer we draw on.
func newColor(a color.Attribute, on bool) *color.Color {
	c := color.New(a)
	if on {
		c.EnableColor()
	} else {
		c.DisableColor()
	}
	return c
}

// run draws src every interval until ctx ends, then draws the final state.
func (p *Progress) run(ctx context.Context, src func() []ScenarioProgress) {
	t := time.NewTicker(p.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			p.Render(src())
			return
		case <-t.C:
			p.Render(src())
		}
	}
}

// Render draws the scenarios once.
func (p *Progress) Render(snap []ScenarioProgress) {
	var b strings.Builder
	if p.tty && p.lines > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", p.lines) // back to the first line drawn last time
	}
	width := 0
	for _, s := range snap {
		width = max(width, utf8.RuneCountInString(s.Name))
	}
	cols := p.columns()
	for _, s := range snap {
		if p.tty {
			b.WriteString("\r\x1b[2K")
		}
		b.WriteString(p.line(s, width).fit(cols))
		b.WriteByte('\n')
	}
	p.lines = len(snap)
	_, _ = io.WriteString(p.w, b.String())
}

// columns is how wide a line may be: only a terminal wraps, and a wrapped line would
// break the redraw, which moves up one row per line.
func (p *Progress) columns() int {
	if !p.tty {
		return 0
	}
	if p.width > 0 {
		return p.width
	}
	if p.fd >= 0 {
		if w, _, err := term.GetSize(p.fd); err == nil && w > 0 {
			return w - 1 // a line that fills the last column wraps on some terminals
		}
	}
	return 0
}
