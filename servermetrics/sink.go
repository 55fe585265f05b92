package servermetrics

import (
	"errors"
	"strings"
	"time"

	"github.com/omnik-dev/omnik/metrics"
)

// Prefix starts a threshold's metric name that is judged on the server's metrics:
// "server:vllm:num_requests_waiting".
const Prefix = "server:"

// Metric is the External metric a threshold on a server family names, or nil when name
// does not start with Prefix.
func Metric(name string) *metrics.Metric {
	family, ok := strings.CutPrefix(name, Prefix)
	if !ok || family == "" {
		return nil
	}
	return &metrics.Metric{Name: name, Kind: metrics.External}
}

// WatchThresholds makes the window follow what the thresholds on server families select.
func (w *Window) WatchThresholds(ths []*metrics.Threshold) {
	for _, th := range ths {
		if family, ok := strings.CutPrefix(th.Metric.Name, Prefix); ok && th.Selector.Len() > 0 {
			w.Watch(family, th.Selector.Map())
		}
	}
}

// Sinks are the sinks of the thresholds on server families, as the window stands now,
// keyed by the thresholds' sink names (metrics.Snapshot.WithSinks).
func (w *Window) Sinks(ths []*metrics.Threshold) map[string]metrics.Sink {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]metrics.Sink{}
	for _, th := range ths {
		family, ok := strings.CutPrefix(th.Metric.Name, Prefix)
		if !ok {
			continue
		}
		if s := w.sink(canonical(family), th.Selector.Map()); s != nil {
			out[th.SinkName()] = s
		}
	}
	return out
}

func (w *Window) sink(family string, sel map[string]string) *serverSink {
	s := &serverSink{typ: w.familyType(family), span: w.span()}
	switch s.typ {
	case "":
		return nil
	case typeGauge, typeUntyped:
		g, ok := w.gauge(family, sel)
		if !ok || g.n == 0 {
			return nil
		}
		s.gauge = g
	case typeCounter:
		inc, last, ok := w.counter(family, sel)
		if !ok {
			return nil
		}
		s.increase, s.last = inc, last
	default:
		h, ok := w.histogram(family, sel)
		if !ok {
			return nil
		}
		s.hist = h
	}
	return s
}

// serverSink answers a threshold from the window: a gauge's pages (value is the last,
// avg, min, max), a counter's increase (count) and its rate, a histogram's observations
// in the window (count, rate, avg, med, p(N)) in the family's own unit. What a type does
// not have is no data, and the threshold fails.
type serverSink struct {
	typ            string
	span           time.Duration
	gauge          gaugeStats
	increase, last float64
	hist           histogram
}

// Add, Merge and Clone: the sink is a read-only view made for one judgement. Count is 1:
// the window has the family (a sink exists only then); Value says whether it has the stat.
func (s *serverSink) Add(metrics.Sample) {}
func (s *serverSink) Merge(metrics.Sink) error {
	return errors.New("a server family's sink is a view of the server's window: it does not merge")
}
func (s *serverSink) Clone() metrics.Sink { cp := *s; return &cp }
func (s *serverSink) Count() int64        { return 1 }

func (s *serverSink) Value(st metrics.Stat, _ time.Duration) (float64, bool) {
	switch s.typ {
	case typeGauge, typeUntyped:
		g := s.gauge
		switch st.Name {
		case "value":
			return g.last, true
		case "avg":
			return g.mean(), true
		case "min":
			return g.min, true
		case "max":
			return g.max, true
		}
	case typeCounter:
		switch st.Name {
		case "count":
			return s.increase, true
		case "value":
			return s.last, true
		case "rate":
			return perSecond(s.increase, s.span)
		}
	default:
		switch st.Name {
		case "count":
			return s.hist.count, true
		case "rate":
			return perSecond(s.hist.count, s.span)
		case "avg":
			return s.hist.mean()
		case "med":
			return s.hist.quantile(0.5)
		case "p":
			return s.hist.quantile(st.P / 100)
		}
	}
	return 0, false
}

func perSecond(v float64, d time.Duration) (float64, bool) {
	if d <= 0 {
		return 0, false
	}
	return v / d.Seconds(), true
}
