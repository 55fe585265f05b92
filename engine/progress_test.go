package engine

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

var snapshot = []ScenarioProgress{
	{Name: "chat", State: "running", ActiveVUs: 3, MaxVUs: 10, Completed: 42, Failed: 2, Interrupted: 1, Dropped: 2, Elapsed: 1500 * time.Millisecond, Total: 3 * time.Second, Progress: 0.5},
	{Name: "tts", State: "waiting", MaxVUs: 2, Total: time.Second},
}

// The lines drawn for a sequence of snapshots: the scenarios' elapsed times are the
// clock, so rates and ETAs are exact.
func TestProgressLines(t *testing.T) {
	t.Parallel()
	sec := time.Second
	frames := []struct {
		snap []ScenarioProgress
		want string
	}{{
		[]ScenarioProgress{
			{Name: "chat", State: "running", ActiveVUs: 2, MaxVUs: 4, Completed: 10, Failed: 2, Elapsed: sec, Total: 4 * sec, Progress: 0.25},
			{Name: "batch", State: "running", ActiveVUs: 1, MaxVUs: 1, Completed: 5, Elapsed: sec, Total: 10 * time.Minute, Progress: 0.1},
			{Name: "tts", State: "waiting", MaxVUs: 2, Total: sec},
		},
		"chat  [=======>----------------------] running  1s/4s  ETA 3s  2/4 VUs  8 ok  2 failed  10.0 iters/s  requests 30 ok 1 failed\n" +
			"batch [===>--------------------------] running  1s/10m0s  ETA 9s  1/1 VUs  5 ok  0 failed  5.00 iters/s  requests 0 ok 0 failed\n" +
			"tts   [>-----------------------------] waiting  0s/1s  0/2 VUs  0 ok  0 failed  requests 0 ok 0 failed\n",
	}, {
		[]ScenarioProgress{
			{Name: "chat", State: "running", ActiveVUs: 4, MaxVUs: 4, Completed: 40, Failed: 2, Interrupted: 1, Dropped: 3, Elapsed: 3 * sec, Total: 4 * sec, Progress: 0.75},
			{Name: "batch", State: "running", ActiveVUs: 1, MaxVUs: 1, Completed: 25, Elapsed: 3 * sec, Total: 10 * time.Minute, Progress: 0.5},
			{Name: "tts", State: "running", MaxVUs: 2, Total: sec},
		},
		"chat  [======================>-------] running  3s/4s  ETA 1s  4/4 VUs  38 ok  2 failed  1 interrupted  3 dropped  13.3 iters/s  requests 30 ok 1 failed\n" +
			"batch [===============>--------------] running  3s/10m0s  ETA 3s  1/1 VUs  25 ok  0 failed  8.33 iters/s  requests 0 ok 0 failed\n" +
			"tts   [>-----------------------------] running  0s/1s  0/2 VUs  0 ok  0 failed  requests 0 ok 0 failed\n",
	}, {
		// Done: the rate over the whole scenario. Running: over the last 5 s, here from 1 s.
		[]ScenarioProgress{
			{Name: "chat", State: "done", MaxVUs: 4, Completed: 52, Failed: 2, Interrupted: 1, Dropped: 3, Elapsed: 4 * sec, Total: 4 * sec, Progress: 1},
			{Name: "batch", State: "running", ActiveVUs: 1, MaxVUs: 1, Completed: 45, Elapsed: 7 * sec, Total: 10 * time.Minute, Progress: 0.9},
			{Name: "tts", State: "running", ActiveVUs: 2, MaxVUs: 2, Completed: 1, Elapsed: 1200 * time.Millisecond, Total: sec, Progress: 1},
		},
		"chat  [==============================] done     4s/4s  0/4 VUs  50 ok  2 failed  1 interrupted  3 dropped  13.0 iters/s  requests 30 ok 1 failed\n" +
			"batch [===========================>--] running  7s/10m0s  ETA 778ms  1/1 VUs  45 ok  0 failed  6.67 iters/s  requests 0 ok 0 failed\n" +
			"tts   [==============================] running  1.2s/1s  2/2 VUs  1 ok  0 failed  0.83 iters/s  requests 0 ok 0 failed\n",
	}}
	var buf bytes.Buffer
	p := NewProgress(&buf, ProgressRequests(func(scenario string) (ok, failed int64) {
		if scenario == "chat" {
			return 30, 1
		}
		return 0, 0
	}))
	for i, f := range frames {
		buf.Reset()
		p.Render(f.snap)
		if got := buf.String(); got != f.want {
			t.Errorf("frame %d:\n%s\nwant\n%s", i, got, f.want)
		}
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

// On a terminal a line that would wrap loses its last fields instead, or the redraw,
// one row up per line, would go wrong; a log gets whole lines.
func TestProgressLineFitsTheTerminal(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	NewProgress(&buf, ProgressTerminal(true), ProgressNoColor(true), ProgressWidth(85)).Render(snapshot[:1])
	if got, want := buf.String(), "\r\x1b[2Kchat [===============>--------------] running  1.5s/3s  ETA 1.5s  3/10 VUs  40 ok\n"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	buf.Reset()
	NewProgress(&buf, ProgressWidth(80)).Render(snapshot[:1])
	if !strings.HasSuffix(buf.String(), "2 dropped  28.0 iters/s\n") {
		t.Errorf("a log line was cut: %q", buf.String())
	}
}

func TestProgressColours(t *testing.T) {
	var buf bytes.Buffer
	NewProgress(&buf, ProgressTerminal(true)).Render(snapshot)
	if !strings.Contains(buf.String(), "\x1b[36m") || !strings.Contains(buf.String(), "\x1b[31m2 failed") {
		t.Errorf("no colour on a terminal: %q", buf.String())
	}
	t.Setenv("NO_COLOR", "1")
	buf.Reset()
	NewProgress(&buf, ProgressTerminal(true)).Render(snapshot)
	if strings.Contains(buf.String(), "\x1b[3") {
		t.Errorf("colour despite NO_COLOR: %q", buf.String())
	}
}

// A run draws a line every interval and the final state at its end.
func TestRunDrawsProgress(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var buf syncBuffer
		r, _ := newRun(t, `{"vus": 2, "duration": "100ms"}`, fakeScript(sleeper(7*time.Millisecond)),
			WithProgress(NewProgress(&buf, ProgressInterval(40*time.Millisecond))))
		r.Run(context.Background())
		// Iterations end every 7 ms on each VU; the last starts at 98 ms and ends at 105 ms.
		want := "default [============>-----------------] running  40ms/100ms  ETA 60ms  2/2 VUs  10 ok  0 failed\n" +
			"default [========================>-----] running  80ms/100ms  ETA 20ms  2/2 VUs  22 ok  0 failed\n" +
			"default [==============================] done     105ms/100ms  0/2 VUs  30 ok  0 failed  286 iters/s\n"
		if got := buf.String(); got != want {
			t.Errorf("progress:\n%s\nwant\n%s", got, want)
		}
	})
}

// Under a second in, no current rate is shown: one iteration in 200 ms is not 5/s.
func TestProgressShowsNoRateUnderASecond(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	p := NewProgress(&buf)
	s := ScenarioProgress{Name: "gate", State: "running", MaxVUs: 1, Completed: 1, Elapsed: 200 * time.Millisecond, Total: 3 * time.Second, Progress: 0.07}
	p.Render([]ScenarioProgress{s})
	s.Elapsed, s.Completed = time.Second, 1
	p.Render([]ScenarioProgress{s})
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || strings.Contains(lines[0], "iters/s") || !strings.HasSuffix(lines[1], "1.00 iters/s") {
		t.Errorf("lines:\n%s\nwant no rate at 200ms and 1.00 iters/s at 1s", buf.String())
	}
}
