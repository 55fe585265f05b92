package engine

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

var snapshot = []ScenarioProgress{
	{Name: "chat", State: "running", ActiveVUs: 3, MaxVUs: 10, Completed: 42, Interrupted: 1, Dropped: 2, Elapsed: 1500 * time.Millisecond, Total: 3 * time.Second, Progress: 0.5},
	{Name: "tts", State: "waiting", MaxVUs: 2, Total: time.Second},
}

func TestProgressPlainLines(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	p := NewProgress(&buf)
	p.Render(snapshot)
	p.Render(snapshot)
	want := "chat [===============>--------------] running 3/10 VUs  42 complete  1 interrupted  2 dropped  1.5s/3s\n" +
		"tts  [>-----------------------------] waiting 0/2 VUs  0 complete  0s/1s\n"
	if got := buf.String(); got != want+want {
		t.Errorf("got\n%q\nwant\n%q", got, want+want)
	}
}

func TestProgressRedrawsInPlaceOnATerminal(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	p := NewProgress(&buf, ProgressTerminal(true), ProgressNoColor(true))
	p.Render(snapshot)
	first := buf.Len()
	p.Render(snapshot)
	second := buf.String()[first:]
	if !strings.HasPrefix(second, "\x1b[2A\r\x1b[2Kchat [") || strings.Contains(second, "\x1b[3") {
		t.Errorf("redraw %q", second)
	}
}

func TestProgressColours(t *testing.T) {
	var buf bytes.Buffer
	NewProgress(&buf, ProgressTerminal(true)).Render(snapshot)
	if !strings.Contains(buf.String(), "\x1b[36m") {
		t.Errorf("no colour on a terminal: %q", buf.String())
	}
	t.Setenv("NO_COLOR", "1")
	buf.Reset()
	NewProgress(&buf, ProgressTerminal(true)).Render(snapshot)
	if strings.Contains(buf.String(), "\x1b[36m") {
		t.Errorf("colour despite NO_COLOR: %q", buf.String())
	}
}

func TestRunDrawsProgress(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	r, _ := newRun(t, `{"vus": 2, "duration": "150ms"}`, fakeScript(sleeper(10*time.Millisecond)),
		WithProgress(NewProgress(&buf, ProgressInterval(50*time.Millisecond))))
	r.Run(context.Background())
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) < 3 || !strings.Contains(lines[len(lines)-1], "done") || !strings.Contains(lines[len(lines)-1], "[==============================]") {
		t.Errorf("progress:\n%s", buf.String())
	}
}
