package report

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/record"
)

// SectionOptions shape the Serving/Stage blocks (vllm bench serve's flags).
type SectionOptions struct {
	Metrics     []string  // --percentile-metrics; nil = every metric with data
	Percentiles []float64 // --metric-percentiles; nil = 99
	NoStages    bool      // --no-stage-summary
	// Goodput, MaxConcurrency and RequestRate are omnik bench's --goodput,
	// --max-concurrency and --request-rate, printed where vllm bench serve prints them.
	Goodput        []SLO
	MaxConcurrency int
	RequestRate    float64
	// Scenarios are the run's scenarios: with two or more, each one that made requests
	// gets its own block after the whole run's.
	Scenarios []string
	// Detailed keeps every record for the per-request arrays of --save-detailed
	// (SaveResult): the one part whose memory grows with the number of requests, so only
	// omnik bench --save-detailed sets it.
	Detailed bool
	// TrendBudget is the exact-sample budget of every distribution (Options.TrendBudget).
	TrendBudget int
	// Started is when the run began: the date of the JSON view.
	Started time.Time
}

func (o SectionOptions) aggregate() Options {
	return Options{Percentiles: o.Percentiles, Goodput: o.Goodput, MaxConcurrency: o.MaxConcurrency,
		RequestRate: o.RequestRate, TrendBudget: o.TrendBudget}
}

// Section is the Serving/Stage Benchmark Result view of a run's record stream: a
// record.Subscriber that folds each request into the whole run's Accumulator (and its
// scenario's, and, once two targets made requests, its target's), and the
// metrics.Section the summary prints. Its memory stays bounded over a soak test but for
// the peaks' events (see Accumulator); only SectionOptions.Detailed keeps records.
type Section struct {
	opts SectionOptions

	mu  sync.Mutex
	all *span
	// byScenario is nil for a run of one scenario: its block is the whole run's.
	byScenario map[string]*span
	// others has the peaks' events of the requests of no scenario in byScenario; the
	// whole run's peaks are those of the scenarios' timelines and others together, so
	// each event is kept once. nil with byScenario.
	others *timeline
	starts map[string]time.Duration // scenario starts on the run's timeline
	seen   map[string]bool          // scenarios that made requests
	ends   map[string]time.Duration // where arrival-rate scenarios' schedules ended on it
	// failures counts failed requests by error kind and status: the reference prints
	// only a total, which says nothing about why a run against a dead server failed.
	failures, anomalies breakdown
	detailed            []*record.Record
	// targets has each target's requests once a second target made some (the A/B block).
	targets targets
	// floor is where the run's measured window began (MeasuredFrom), math.MinInt64 for
	// a run measured whole.
	floor time.Duration
}

// span is the requests of the whole run or of one scenario, folded.
type span struct {
	acc         *Accumulator
	first, last time.Duration // earliest start and latest end on the run's timeline
}

// NewSection returns an empty Section.
func NewSection(opts SectionOptions) *Section {
	s := &Section{opts: opts, starts: map[string]time.Duration{},
		ends: map[string]time.Duration{}, seen: map[string]bool{}, targets: newTargets(opts.TrendBudget), floor: math.MinInt64}
	if len(opts.Scenarios) <= 1 {
		s.all = newSpan(NewAccumulator(opts.aggregate()))
		return s
	}
	s.byScenario = map[string]*span{}
	s.others = newTimeline()
	tls := []*timeline{s.others}
	for _, name := range opts.Scenarios {
		if s.byScenario[name] == nil {
			sp := newSpan(NewAccumulator(opts.aggregate()))
			s.byScenario[name] = sp
			tls = append(tls, sp.acc.timeline)
		}
	}
	s.all = newSpan(newAccumulator(opts.aggregate(), tls))
	return s
}

func newSpan(acc *Accumulator) *span {
	return &span{acc: acc, first: math.MaxInt64, last: math.MinInt64}
}

func (sp *span) add(r *record.Record) {
	sp.acc.Add(r)
	end := r.Offset + record.E2EL(r)
	if r.Interrupted() {
		// Its tail is the run's ending (a gracefulStop of 30 s), not the benchmark's.
		end = r.Offset
	}
	sp.first, sp.last = min(sp.first, r.Offset), max(sp.last, end)
}

// duration is the benchmark duration: from the scenario's start (or the first request's)
// to the last request's end, as vllm bench serve counts from before its first arrival
// gap: a benchmark starts before its first request. It lasts at least until end, where
// an arrival schedule ended (math.MinInt64 for none).
// No benchmark begins before floor, where a run's measured window began (math.MinInt64
// for none): a request that started in a warm-up and ended after it is in the window,
// its start is not.
func (sp *span) duration(start time.Duration, started bool, end, floor time.Duration) time.Duration {
	first := sp.first
	if started {
		first = min(first, start)
	}
	return max(sp.last, end) - max(first, floor)
}

// Add implements record.Subscriber.
func (s *Section) Add(r *record.Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Before the whole run's span takes r: until a second target, that span is the first's.
	s.targets.add(r, s.all, s.opts.aggregate())
	s.all.add(r)
	s.seen[r.Scenario] = true
	if sp := s.byScenario[r.Scenario]; sp != nil {
		sp.add(r)
	} else if s.others != nil && r.OK() {
		// As Accumulator.Add counts a request in its peaks.
		s.others.add(r)
	}
	addRecord(&s.failures, &s.anomalies, r)
	if s.opts.Detailed {
		s.detailed = append(s.detailed, r)
	}
}

// ScenarioStarted places a scenario's start on the run's timeline, where its benchmark
// duration begins.
func (s *Section) ScenarioStarted(name string, at time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.starts[name] = at
}

// ScenarioScheduleEnded places where an arrival-rate scenario's schedule ended on the
// run's timeline: its benchmark lasts at least until then, as the scenario lasts its
// whole duration, so that 1 request a second for 3 s is 1 req/s, not 3 requests over the
// 2 s from the first to the last.
func (s *Section) ScenarioScheduleEnded(name string, at time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ends[name] = at
}

// MeasuredFrom places the start of the run's measured window on its timeline (a
// warm-up before it was left out): no benchmark duration begins earlier.
func (s *Section) MeasuredFrom(at time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.floor = at
}

type scenarioResult struct {
	name   string
	result *Result
}

// results aggregates the whole run and, when several scenarios made requests, each one.
// The caller holds s.mu.
func (s *Section) results() []scenarioResult {
	if s.all.acc.requests() == 0 {
		return nil
	}
	start, started, runEnd := s.runSpan()
	out := []scenarioResult{{"", s.all.acc.Result(s.all.duration(start, started, runEnd, s.floor))}}
	for _, name := range slices.Sorted(maps.Keys(s.byScenario)) {
		sp := s.byScenario[name]
		if sp.acc.requests() > 0 {
			at, ok := s.starts[name]
			end, ended := s.ends[name]
			if !ended {
				end = math.MinInt64
			}
			out = append(out, scenarioResult{name, sp.acc.Result(sp.duration(at, ok, end, s.floor))})
		}
	}
	return out
}

// runSpan is where the whole run's benchmark duration begins, the earliest start of a
// scenario that made requests (ok false without one), and where it lasts at least until,
// the latest end of their arrival schedules (math.MinInt64 for none). The caller holds s.mu.
func (s *Section) runSpan() (start time.Duration, ok bool, end time.Duration) {
	for name, at := range s.starts {
		if s.seen[name] && (!ok || at < start) {
			start, ok = at, true
		}
	}
	end = math.MinInt64
	for name, at := range s.ends {
		if s.seen[name] {
			end = max(end, at)
		}
	}
	return start, ok, end
}

// ab is the A/B block's table, nil unless two targets or more made requests. Each target
// is timed over the whole run's span, as the targets of one run share it. The caller
// holds s.mu.
func (s *Section) ab() *abTable {
	start, started, end := s.runSpan()
	results := s.targets.results(start, started, end, s.floor)
	if results == nil {
		return nil
	}
	var paired []pairedResult
	for _, tr := range results[1:] {
		if pr, ok := s.targets.pairs.result(results[0].name, tr.name); ok {
			paired = append(paired, pr)
		}
	}
	return newABTable(results, paired, s.opts.Metrics)
}

// Name implements metrics.Section.
func (s *Section) Name() string { return "omni" }

// Text implements metrics.Section: the failures by kind, then the whole run's blocks and
// each scenario's, then, when the requests went to two targets or more, the A/B block.
func (s *Section) Text(w io.Writer) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writeFailures(w); err != nil {
		return err
	}
	for _, r := range s.results() {
		title := ""
		if r.name != "" {
			title = "Serving Benchmark Result (" + r.name + ")"
		}
		err := Render(w, r.result, RenderOptions{Metrics: s.opts.Metrics, Stages: !s.opts.NoStages, Title: title})
		if err != nil {
			return err
		}
		note := "\n"
		if b := r.result.ErrorBound(); b > 0 {
			// The layout above is vLLM's; the note goes after it.
			note = fmt.Sprintf("(medians and percentiles above are approximate, from HDR histograms: relative error ≤ %.3g%%)\n\n", b*100)
		}
		if _, err := io.WriteString(w, note); err != nil {
			return err
		}
	}
	if t := s.ab(); t != nil {
		if err := t.render(w); err != nil {
			return err
		}
		_, err := io.WriteString(w, "\n")
		return err
	}
	return nil
}

// writeFailures lists failed requests by error kind and status, and anomalies by kind,
// above the blocks, so the vLLM layout below stays byte-compatible. The caller holds s.mu.
func (s *Section) writeFailures(w io.Writer) error {
	if err := s.failures.write(w, "FAILED REQUESTS BY ERROR"); err != nil {
		return err
	}
	return s.anomalies.write(w, "ANOMALIES (counted; these requests did not fail for them)")
}

// JSON implements metrics.Section: the --save-result view of the whole run ("all") and
// of each scenario, and the A/B view ("ab") of a run of two targets or more.
func (s *Section) JSON() any {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]any{}
	for _, r := range s.results() {
		name := r.name
		if name == "" {
			name = "all"
		}
		out[name] = SaveResult(r.result, RunInfo{Date: s.opts.Started}, s.opts.Metrics)
	}
	if t := s.ab(); t != nil {
		out["ab"] = t.json(RunInfo{Date: s.opts.Started}, s.opts.Metrics)
	}
	if len(s.failures.groups) > 0 {
		out["failures_by_error"] = s.failures.byKind()
		out["failures"] = s.failures.list()
	}
	if len(s.anomalies.groups) > 0 {
		out["anomalies"] = s.anomalies.list()
	}
	return out
}

// SaveResult is the `--save-result` JSON of the whole run (with `--save-detailed`'s
// per-request arrays when the section keeps records) and vllm's default file name for
// it; ok is false when no request was made.
func (s *Section) SaveResult(info RunInfo) (result map[string]any, filename string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	results := s.results()
	if len(results) == 0 {
		return nil, "", false
	}
	r := results[0].result
	metadata := info.Metadata
	info.Metadata = nil
	result = SaveResult(r, info, s.opts.Metrics)
	addMetadata(result, metadata)
	if s.opts.Detailed {
		SaveDetailed(result, s.detailed)
	}
	return result, ResultFilename(r, info), true
}

// metadataReplaces are the keys vllm writes before the `--metadata` pairs, so a pair of
// the same name replaces them; every later key (traffic, results, omnik's) wins over a
// pair, as in vllm's `{**result_json, **benchmark_result}`.
var metadataReplaces = map[string]bool{
	"date": true, "endpoint_type": true, "backend": true, "label": true,
	"model_id": true, "tokenizer_id": true, "num_prompts": true,
}

func addMetadata(result map[string]any, metadata map[string]string) {
	for k, v := range metadata {
		if _, taken := result[k]; taken && !metadataReplaces[k] {
			continue
		}
		result[k] = v
	}
}
