package omni

import (
	"strings"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/report"
)

// The log keeps requests only for --save-detailed; the whole run spans every scenario.
func TestRequestLogKeepsRequestsOnlyWhenDetailed(t *testing.T) {
	t.Parallel()
	for _, detailed := range []bool{false, true} {
		l := newRequestLog(SectionOptions{Detailed: detailed})
		l.add("b", report.Request{Success: true, Start: 2 * time.Second, Latency: time.Second, OutputTokens: 3})
		l.add("a", report.Request{Success: true, Start: time.Second, Latency: time.Second, OutputTokens: 2})
		l.add("a", report.Request{Error: "HTTP 500", Start: 4 * time.Second, Latency: time.Second})
		names, all := l.scenarios()
		if len(names) != 2 || names[0] != "a" || all.span() != 4*time.Second {
			t.Errorf("detailed=%v: names %v span %v, want [a b] and 4s", detailed, names, all.span())
		}
		if r := all.acc.Result(all.span()); r.Completed != 2 || r.Failed != 1 || r.TotalOutput != 5 {
			t.Errorf("detailed=%v: whole run %d ok %d failed %d tokens", detailed, r.Completed, r.Failed, r.TotalOutput)
		}
		if want := map[bool]int{false: 0, true: 3}[detailed]; len(all.reqs) != want {
			t.Errorf("detailed=%v: kept %d requests, want %d", detailed, len(all.reqs), want)
		}
	}
}

// Failed requests are listed by error kind above the (byte-compatible) blocks.
func TestSectionListsFailuresByKind(t *testing.T) {
	t.Parallel()
	l := newRequestLog(SectionOptions{})
	l.add("s", report.Request{Error: "connect: dial tcp: refused", Latency: time.Millisecond})
	l.add("s", report.Request{Error: "connect: dial tcp: refused", Latency: time.Millisecond})
	l.add("s", report.Request{Error: "http_status: HTTP 503", Latency: time.Millisecond})
	l.add("s", report.Request{Success: true, Latency: time.Millisecond})
	var b strings.Builder
	if err := (&section{log: l}).Text(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "FAILED REQUESTS BY ERROR\n\n    connect 2, http_status 1\n") {
		t.Errorf("no failure breakdown in:\n%s", b.String())
	}
	if strings.Index(b.String(), "FAILED") > strings.Index(b.String(), "Serving Benchmark Result") {
		t.Error("the breakdown must come before the Serving block")
	}
	js := (&section{log: l}).JSON().(map[string]any)
	if got := js["failures_by_error"].(map[string]int); got["connect"] != 2 || got["http_status"] != 1 {
		t.Errorf("failures_by_error = %v", got)
	}
}

// The benchmark duration counts from the scenario's start when it is known, as vllm
// bench serve counts from before its first arrival gap.
func TestSpanStartsAtTheScenarioStart(t *testing.T) {
	t.Parallel()
	l := newRequestLog(SectionOptions{})
	l.add("s", report.Request{Success: true, Start: 2 * time.Second, Latency: time.Second})
	_, all := l.scenarios()
	if got := all.span(); got != time.Second {
		t.Fatalf("span without a scenario start = %v, want 1s", got)
	}
	l.started("s", 1500*time.Millisecond)
	if _, all := l.scenarios(); all.span() != 1500*time.Millisecond {
		t.Errorf("span from the scenario start = %v, want 1.5s", all.span())
	}
}
