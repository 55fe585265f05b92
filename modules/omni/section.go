package omni

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/report"
)

// requestLog folds each finished request into its scenario's report.Accumulator for the
// Serving and Stage blocks, so its memory stays bounded over a soak test. Only
// SectionOptions.Detailed also keeps every request.
type requestLog struct {
	mu         sync.Mutex
	origin     time.Time
	opts       SectionOptions
	byScenario map[string]*scenarioLog
	// failures counts failed requests by error kind: the reference prints only a total,
	// which says nothing about why a run against a dead server failed.
	failures map[string]int
}

// scenarioLog is one scenario's requests, folded.
type scenarioLog struct {
	acc         *report.Accumulator
	first, last time.Duration // earliest start and latest end of any request
	reqs        []report.Request
}

func newRequestLog(opts SectionOptions) *requestLog {
	return &requestLog{origin: time.Now(), opts: opts, byScenario: map[string]*scenarioLog{}, failures: map[string]int{}}
}

func (l *requestLog) add(scenario string, q report.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	sc := l.byScenario[scenario]
	if sc == nil {
		sc = l.newScenarioLog()
		l.byScenario[scenario] = sc
	}
	sc.acc.Add(q)
	if !q.Success {
		kind, _, _ := strings.Cut(q.Error, ":")
		l.failures[kind]++
	}
	sc.first, sc.last = min(sc.first, q.Start), max(sc.last, q.Start+q.Latency)
	if l.opts.Detailed {
		sc.reqs = append(sc.reqs, q)
	}
}

// started counts the scenario's duration from its start, as vllm bench serve counts its
// own from before the first arrival gap: a benchmark starts before its first request.
func (l *requestLog) started(scenario string, at time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if sc := l.byScenario[scenario]; sc != nil {
		sc.first = min(sc.first, at)
	}
}

func (l *requestLog) newScenarioLog() *scenarioLog {
	return &scenarioLog{acc: report.NewAccumulator(l.opts.aggregate()),
		first: math.MaxInt64, last: math.MinInt64}
}

// span is the benchmark duration: the scenario's start (or its first request's) to the
// last request's end.
func (sc *scenarioLog) span() time.Duration { return sc.last - sc.first }

// scenarios returns the scenario names in order, and the whole run: the scenarios merged
// in that order, as if their requests had been listed one scenario after the other.
// The caller holds l.mu.
func (l *requestLog) scenarios() ([]string, *scenarioLog) {
	names := slices.Sorted(maps.Keys(l.byScenario))
	if len(names) == 1 {
		return names, l.byScenario[names[0]]
	}
	all := l.newScenarioLog()
	for _, n := range names {
		sc := l.byScenario[n]
		all.acc.Merge(sc.acc)
		all.first, all.last = min(all.first, sc.first), max(all.last, sc.last)
		all.reqs = append(all.reqs, sc.reqs...)
	}
	return names, all
}

// SectionOptions shape the Serving/Stage blocks (vllm bench serve's flags).
type SectionOptions struct {
	Metrics     []string  // --percentile-metrics; nil = every metric with data
	Percentiles []float64 // --metric-percentiles; nil = 99
	NoStages    bool      // --no-stage-summary
	// Goodput, MaxConcurrency and RequestRate are omnik bench's --goodput,
	// --max-concurrency and --request-rate, printed where vllm bench serve prints them.
	Goodput        []report.SLO
	MaxConcurrency int
	RequestRate    float64
	// Detailed keeps every request for the per-request arrays of --save-detailed
	// (Module.SaveResult): the one part of the summary whose memory grows with the number
	// of requests, so only omnik bench --save-detailed sets it.
	Detailed bool
	// ExactSamples is how many values each distribution keeps for exact percentiles;
	// 0 means report.DefaultExactSamples.
	ExactSamples int
}

// WithSection sets the options of the Serving/Stage blocks before the run: requests are
// judged against the goodput SLOs as they finish, and Detailed decides whether every
// request is kept.
func WithSection(opts SectionOptions) Option {
	return func(m *Module) { m.log = newRequestLog(opts) }
}

// section is the summary block of the omni module.
type section struct{ log *requestLog }

func (s *section) Name() string { return "omni" }

type scenarioResult struct {
	name   string
	result *report.Result
}

// results aggregates the whole run and, when there are several scenarios, each one.
func (s *section) results() []scenarioResult {
	l := s.log
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.byScenario) == 0 {
		return nil
	}
	names, all := l.scenarios()
	out := []scenarioResult{{"", all.acc.Result(all.span())}}
	if len(names) > 1 {
		for _, n := range names {
			sc := l.byScenario[n]
			out = append(out, scenarioResult{n, sc.acc.Result(sc.span())})
		}
	}
	return out
}

func (o SectionOptions) aggregate() report.Options {
	return report.Options{Percentiles: o.Percentiles, Goodput: o.Goodput,
		MaxConcurrency: o.MaxConcurrency, RequestRate: o.RequestRate, ExactSamples: o.ExactSamples}
}

func (s *section) Text(w io.Writer) error {
	if err := s.writeFailures(w); err != nil {
		return err
	}
	for _, r := range s.results() {
		title := ""
		if r.name != "" {
			title = "Serving Benchmark Result (" + r.name + ")"
		}
		err := report.Render(w, r.result, report.RenderOptions{Metrics: s.log.opts.Metrics, Stages: !s.log.opts.NoStages, Title: title})
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
	return nil
}

// writeFailures lists failed requests by error kind, above the blocks, so the vLLM
// layout below stays byte-compatible.
func (s *section) writeFailures(w io.Writer) error {
	s.log.mu.Lock()
	kinds := slices.Sorted(maps.Keys(s.log.failures))
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s %d", k, s.log.failures[k])
	}
	s.log.mu.Unlock()
	if len(parts) == 0 {
		return nil
	}
	_, err := fmt.Fprintf(w, "  FAILED REQUESTS BY ERROR\n\n    %s\n\n", strings.Join(parts, ", "))
	return err
}

// JSON is the --save-result view of the whole run and of each scenario.
func (s *section) JSON() any {
	out := map[string]any{}
	for _, r := range s.results() {
		name := r.name
		if name == "" {
			name = "all"
		}
		out[name] = report.SaveResult(r.result, report.RunInfo{Date: time.Now()}, s.log.opts.Metrics)
	}
	s.log.mu.Lock()
	if len(s.log.failures) > 0 {
		out["failures_by_error"] = maps.Clone(s.log.failures)
	}
	s.log.mu.Unlock()
	return out
}
