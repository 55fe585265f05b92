package report

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/record"
)

// scenario places the record in a scenario; its tags may say otherwise, as a call's own
// tags can.
func scenario(name string) func(*record.Record) {
	return func(r *record.Record) { r.Scenario, r.Tags = name, map[string]string{"scenario": "retagged"} }
}

func sectionText(t *testing.T, s *Section) string {
	t.Helper()
	var b strings.Builder
	if err := s.Text(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Failed requests are listed by error kind and status above the (byte-compatible)
// blocks, most first, each with its first message made printable; anomalies by kind.
func TestSectionListsFailuresByKindAndStatus(t *testing.T) {
	t.Parallel()
	s := NewSection(SectionOptions{})
	status := func(kind string, code int, msg string) func(*record.Record) {
		return func(r *record.Record) { r.Err, r.Status = &record.Error{Kind: kind, Message: msg}, code }
	}
	flagged := func(r *record.Record) {
		r.Anomalies = []record.Anomaly{{Kind: record.AnomalyTextCut, Message: "cut", Count: 1}}
	}
	for _, r := range []*record.Record{
		req(status(record.KindHTTPStatus, 429, "HTTP 429: slow down")), req(status(record.KindHTTPStatus, 429, "HTTP 429: later")),
		req(status(record.KindHTTPStatus, 500, "HTTP 500: engine\x1b[31m crashed\nagain")),
		req(status(record.KindStreamError, 200, "event at byte 9: boom")), req(status(record.KindConnect, 0, `Post "http://h/v1/chat/completions": dial tcp: refused`)), req(status(record.KindInterrupted, 200, "stopped")),
		req(at(0, 1), flagged), req(at(0, 1), flagged), req(at(0, 1)),
	} {
		s.Add(r)
	}
	out := sectionText(t, s)
	want := "  FAILED REQUESTS BY ERROR\n\n" +
		"    http_status 429               2  HTTP 429: slow down\n" +
		"    connect                       1  dial tcp: refused\n" +
		"    http_status 500               1  HTTP 500: engine [31m crashed again\n" +
		"    stream_error_event            1  event at byte 9: boom\n\n" +
		"  ANOMALIES (counted; these requests did not fail for them)\n\n" +
		"    text_truncated                2  cut\n\n"
	if !strings.HasPrefix(out, want) {
		t.Errorf("breakdown:\n%s\nwant it to start with:\n%s", out, want)
	}
	js := s.JSON().(map[string]any)
	if got := js["failures_by_error"].(map[string]int); len(got) != 3 || got["http_status"] != 3 || got["stream_error_event"] != 1 {
		t.Errorf("failures_by_error = %v", got)
	}
	list := js["failures"].([]map[string]any)
	if len(list) != 4 || list[0]["status"] != 429 || list[0]["count"] != 2 || list[2]["status"] != 500 || list[3]["status"] != nil {
		t.Errorf("failures = %v", list)
	}
	if a := js["anomalies"].([]map[string]any); len(a) != 1 || a[0]["count"] != 2 {
		t.Errorf("anomalies = %v", a)
	}
}

// A record file may hold any kinds and statuses: the breakdown keeps the first groups
// and counts the rest together.
func TestSectionFailureGroupsAreBounded(t *testing.T) {
	t.Parallel()
	s := NewSection(SectionOptions{})
	for code := range 1000 {
		s.Add(req(func(r *record.Record) {
			r.Err, r.Status = &record.Error{Kind: record.KindHTTPStatus, Message: "x"}, 1000+code
		}))
	}
	if n := len(s.failures.groups); n != maxBreakdownGroups || s.failures.others != 1000-maxBreakdownGroups {
		t.Errorf("%d groups and %d others", n, s.failures.others)
	}
	if got := s.JSON().(map[string]any)["failures_by_error"].(map[string]int); got[record.KindHTTPStatus] != 1000 {
		t.Errorf("failures_by_error %v, want all 1000 counted", got)
	}
	if out := sectionText(t, s); !strings.Contains(out, fmt.Sprintf("(other kinds)               %d\n", 1000-maxBreakdownGroups)) {
		t.Errorf("no count of the rest:\n%s", out[:400])
	}
}

// With several scenarios each one that made requests gets a block after the whole run's;
// the whole run's TTFT holds only the text requests, whichever scenario made them.
func TestSectionBlocksPerScenario(t *testing.T) {
	t.Parallel()
	s := NewSection(SectionOptions{Scenarios: []string{"chat", "idle", "images"}, Metrics: []string{"ttft"}})
	s.Add(req(at(0, 1000), text(80), scenario("chat")))
	s.Add(req(at(100, 1000), text(120), scenario("chat")))
	s.Add(req(at(200, 500), image(300, 4, 200, 0), scenario("images")))
	out := sectionText(t, s)
	for _, want := range []string{
		"============ Serving Benchmark Result ============\nSuccessful requests:                     3 ",
		"Mean TTFT (ms):                          100.00",
		"======== Serving Benchmark Result (chat) =========\nSuccessful requests:                     2 ",
		"======= Serving Benchmark Result (images) ========\nSuccessful requests:                     1 ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "(idle)") || strings.Count(out, "Mean TTFT (ms):                          100.00") != 2 {
		t.Errorf("an idle scenario got a block, or a TTFT was diluted:\n%s", out)
	}
	one := NewSection(SectionOptions{Scenarios: []string{"chat"}})
	one.Add(req(at(0, 1000), text(80), scenario("chat")))
	if got := sectionText(t, one); strings.Contains(got, "(chat)") {
		t.Errorf("a run of one scenario printed a scenario block:\n%s", got)
	}
}

// The benchmark duration counts from the scenario's start when it is known, as vllm
// bench serve counts from before its first arrival gap; a scenario that made no request
// does not move it.
func TestSectionDurationStartsAtTheScenarioStart(t *testing.T) {
	t.Parallel()
	duration := func(s *Section) time.Duration {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.results()[0].result.Duration
	}
	s := NewSection(SectionOptions{})
	s.Add(req(at(2000, 1000), scenario("s")))
	if got := duration(s); got != time.Second {
		t.Fatalf("duration without a scenario start = %v, want 1s", got)
	}
	s.ScenarioStarted("idle", 0)
	s.ScenarioStarted("s", 1500*time.Millisecond)
	if got := duration(s); got != 1500*time.Millisecond {
		t.Errorf("duration from the scenario start = %v, want 1.5s", got)
	}
}

// An arrival-rate scenario's benchmark lasts until its schedule ended when its last
// request ended before: 3 requests at 1/s over a 3 s schedule are 1 req/s. A request
// that outlasts the schedule still ends the benchmark; an idle scenario moves nothing.
func TestSectionDurationCoversTheArrivalSchedule(t *testing.T) {
	t.Parallel()
	sec := func(s *Section) (all, one time.Duration) {
		s.mu.Lock()
		defer s.mu.Unlock()
		r := s.results()
		return r[0].result.Duration, r[1].result.Duration
	}
	s := NewSection(SectionOptions{Scenarios: []string{"gate", "idle"}})
	for i := range 3 {
		s.Add(req(at(float64(i)*1000, 100), scenario("gate")))
	}
	s.ScenarioStarted("gate", 0)
	s.ScenarioScheduleEnded("gate", 3*time.Second)
	s.ScenarioStarted("idle", 0)
	s.ScenarioScheduleEnded("idle", time.Minute)
	if all, one := sec(s); all != 3*time.Second || one != 3*time.Second {
		t.Errorf("durations %v (run) and %v (gate), want 3s: the schedule's end", all, one)
	}
	s.Add(req(at(2900, 600), scenario("gate")))
	if all, one := sec(s); all != 3500*time.Millisecond || one != 3500*time.Millisecond {
		t.Errorf("durations %v and %v, want 3.5s: the last request's end", all, one)
	}
}

// The section keeps records only for --save-detailed, whose arrays carry the generated
// text.
func TestSectionKeepsRecordsOnlyWhenDetailed(t *testing.T) {
	t.Parallel()
	for _, detailed := range []bool{false, true} {
		s := NewSection(SectionOptions{Detailed: detailed})
		r := req(at(0, 100), text(10))
		r.Text = "hello"
		s.Add(r)
		res, name, ok := s.SaveResult(RunInfo{Date: time.Now(), Backend: "b", ModelID: "m", Metadata: map[string]string{"completed": "x", "gpu": "H100"}})
		texts, _ := res["generated_texts"].([]string)
		switch {
		case !ok || !strings.HasPrefix(name, "b-infqps-m-"):
			t.Fatalf("SaveResult ok %v name %q", ok, name)
		case res["completed"] != 1 || res["gpu"] != "H100":
			t.Errorf("metadata must not replace results: completed %v gpu %v", res["completed"], res["gpu"])
		case detailed && (len(texts) != 1 || texts[0] != "hello"):
			t.Errorf("generated_texts = %#v, want the reply", res["generated_texts"])
		case !detailed && res["generated_texts"] != nil:
			t.Errorf("generated_texts without --save-detailed: %#v", res["generated_texts"])
		}
	}
	if _, _, ok := NewSection(SectionOptions{}).SaveResult(RunInfo{}); ok {
		t.Error("SaveResult of a run without requests")
	}
}

// A request the run cut off ends nothing: its tail is the run's ending (gracefulStop),
// not the benchmark's, so the duration and the rates over it stay the served requests'.
func TestSectionDurationLeavesOutAnInterruptedTail(t *testing.T) {
	t.Parallel()
	s := NewSection(SectionOptions{})
	s.Add(req(at(0, 1000)))
	cut := req(at(500, 30000))
	cut.Err = &record.Error{Kind: record.KindInterrupted, Message: "context canceled"}
	s.Add(cut)
	s.mu.Lock()
	defer s.mu.Unlock()
	if got := s.results()[0].result.Duration; got != time.Second {
		t.Errorf("duration %v, want 1s: the interrupted request's 30 s tail left out", got)
	}
}
