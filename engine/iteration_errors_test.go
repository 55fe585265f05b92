package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/js"
)

func TestIterationErrorsShowTheFirstOfEachMessageAndCountTheRest(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	now := time.Unix(1000, 0)
	e := newIterationErrors(slogTo(&buf), func() time.Time { return now })
	// One second of a script throwing 50,000 times, the same message every time, plus a
	// second message twice.
	for i := range 50000 {
		e.failed("s", "TypeError: boom at s.js:3:5")
		if i%25000 == 0 {
			e.failed("s", "Error: other")
		}
		now = now.Add(20 * time.Microsecond)
	}
	out := buf.String()
	if n := countLines(out, `msg="iteration failed"`); n != 5 {
		t.Errorf("%d lines shown, want 3 of boom and 2 of other:\n%s", n, out)
	}
	if strings.Contains(out, "not shown") {
		t.Errorf("reported before errorsReportEvery:\n%s", out)
	}
	// Ten seconds on, the next error reports what was hidden so far, itself included.
	now = now.Add(errorsReportEvery)
	e.failed("s", "TypeError: boom at s.js:3:5")
	out = buf.String()
	if !strings.Contains(out, `msg="… 49998 more iteration errors like this were not shown" scenario=s error="TypeError: boom at s.js:3:5"`) {
		t.Errorf("no periodic report of the hidden errors:\n%s", out)
	}
	now = now.Add(time.Second)
	e.failed("s", "TypeError: boom at s.js:3:5")
	e.flush()
	if !strings.Contains(buf.String(), `msg="… 1 more iteration errors like this were not shown"`) {
		t.Errorf("flush did not report the last hidden error:\n%s", buf.String())
	}
	before := buf.String()
	e.flush()
	if buf.String() != before {
		t.Errorf("a second flush logged again:\n%s", strings.TrimPrefix(buf.String(), before))
	}
}

func TestIterationErrorsShowAtMostTenLinesASecond(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	now := time.Unix(1000, 0)
	e := newIterationErrors(slogTo(&buf), func() time.Time { return now })
	// Every message distinct (it names its iteration): only the overall limit applies.
	for sec := range 3 {
		for i := range 1000 {
			e.failed("s", fmt.Sprintf("Error: iteration %d-%d failed", sec, i))
			now = now.Add(time.Millisecond)
		}
	}
	out := buf.String()
	if n := countLines(out, `msg="iteration failed"`); n != 30 {
		t.Errorf("%d lines in 3 s, want 30", n)
	}
	e.flush()
	out = buf.String()
	// 2970 hidden: 5 named, the rest (beyond errorsTracked too) summed in one line.
	if n := countLines(out, "like this were not shown"); n != errorsReportLines {
		t.Errorf("%d messages named in the report, want %d:\n%s", n, errorsReportLines, out)
	}
	if !strings.Contains(out, `msg="… 2965 more iteration errors with other messages were not shown"`) {
		t.Errorf("other messages not summed:\n%s", out)
	}
}

func TestRunReportsHiddenIterationErrorsAtTheEnd(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	r, _ := newRun(t, `{"vus": 1, "iterations": 200}`, fakeScript(func(context.Context, uint64, *js.Iteration) error {
		return errors.New("boom")
	}), WithLogger(slogTo(&buf)))
	res := r.Run(context.Background())
	out := buf.String()
	if res.IterationsCompleted != 200 || countLines(out, `msg="iteration failed"`) != errorsShownPerMessage {
		t.Fatalf("completed %d, log:\n%s", res.IterationsCompleted, out)
	}
	if !strings.Contains(out, `msg="… 197 more iteration errors like this were not shown" scenario=default error=boom`) {
		t.Errorf("the end of the run does not report the hidden errors:\n%s", out)
	}
}
