package omni

import (
	"io"
	"sort"
	"sync"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/report"
)

// requestLog keeps each finished request's report view, by scenario, for the Serving and
// Stage blocks. It grows with the number of requests, like the reference client's
// lists; the metric sinks stay bounded regardless.
type requestLog struct {
	mu         sync.Mutex
	origin     time.Time
	byScenario map[string][]report.Request
	order      []string
}

func newRequestLog() *requestLog {
	return &requestLog{origin: time.Now(), byScenario: map[string][]report.Request{}}
}

func (l *requestLog) add(scenario string, q report.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.byScenario[scenario]; !ok {
		l.order = append(l.order, scenario)
	}
	l.byScenario[scenario] = append(l.byScenario[scenario], q)
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
}

// section is the summary block of the omni module.
type section struct {
	log  *requestLog
	opts SectionOptions
}

func (s *section) Name() string { return "omni" }

type scenarioResult struct {
	name   string
	result *report.Result
}

// results aggregates the whole run and, when there are several scenarios, each one.
func (s *section) results() []scenarioResult {
	all, names := s.log.all()
	if len(all) == 0 {
		return nil
	}
	opts := s.opts.aggregate()
	out := []scenarioResult{{"", report.Aggregate(all, span(all), opts)}}
	if len(names) > 1 {
		for _, n := range names {
			reqs := s.log.scenario(n)
			out = append(out, scenarioResult{n, report.Aggregate(reqs, span(reqs), opts)})
		}
	}
	return out
}

func (o SectionOptions) aggregate() report.Options {
	return report.Options{Percentiles: o.Percentiles, Goodput: o.Goodput,
		MaxConcurrency: o.MaxConcurrency, RequestRate: o.RequestRate}
}

// all returns every request, scenario by scenario in name order, and the names.
func (l *requestLog) all() ([]report.Request, []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	names := append([]string(nil), l.order...)
	sort.Strings(names)
	var all []report.Request
	for _, n := range names {
		all = append(all, l.byScenario[n]...)
	}
	return all, names
}

func (l *requestLog) scenario(name string) []report.Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.byScenario[name]
}

// span is the benchmark duration: first request start to last request end.
func span(reqs []report.Request) time.Duration {
	first, last := reqs[0].Start, time.Duration(0)
	for _, q := range reqs {
		first = min(first, q.Start)
		last = max(last, q.Start+q.Latency)
	}
	return last - first
}

func (s *section) Text(w io.Writer) error {
	for _, r := range s.results() {
		title := ""
		if r.name != "" {
			title = "Serving Benchmark Result (" + r.name + ")"
		}
		err := report.Render(w, r.result, report.RenderOptions{Metrics: s.opts.Metrics, Stages: !s.opts.NoStages, Title: title})
		if err != nil {
			return err
		}
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
	}
	return nil
}

// JSON is the --save-result view of the whole run and of each scenario.
func (s *section) JSON() any {
	out := map[string]any{}
	for _, r := range s.results() {
		name := r.name
		if name == "" {
			name = "all"
		}
		out[name] = report.SaveResult(r.result, report.RunInfo{Date: time.Now()}, s.opts.Metrics)
	}
	return out
}
