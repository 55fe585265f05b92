// Package metrics holds samples, the metric registry, sinks, thresholds, the summary model
// and outputs. It knows nothing of JavaScript or HTTP.
package metrics

import (
	"fmt"
	"regexp"
	"sort"
	"sync"
)

// Kind is how a metric's samples are aggregated.
type Kind int

// The four metric kinds.
const (
	Counter Kind = iota + 1 // count and rate per second
	Gauge                   // last, min, max
	Rate                    // share of non-zero samples
	Trend                   // count, avg, min, max, med, percentiles
	// External metrics have sinks another package supplies at judging time (a server's
	// scraped metrics, "server:vllm:num_requests_waiting"): no samples reach them.
	External
)

var kindNames = map[Kind]string{Counter: "counter", Gauge: "gauge", Rate: "rate", Trend: "trend", External: "external"}

func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// ValueType says what a metric's values are, so renderers can format them.
type ValueType int

// Value types.
const (
	Default ValueType = iota // plain numbers
	Time                     // milliseconds
	Data                     // bytes
)

var valueTypeNames = map[ValueType]string{Default: "default", Time: "time", Data: "data"}

func (v ValueType) String() string { return valueTypeNames[v] }

// Metric is a registered metric. It is immutable once registered and shared by pointer.
type Metric struct {
	Name     string
	Kind     Kind
	Contains ValueType
	// Quiet metrics stay out of the text summary's METRICS block unless a threshold
	// judges them (the JSON summary and the outputs have them all): the client's own
	// load, which a run's summary speaks of only when it was the limit.
	Quiet bool
}

// nameRe excludes dots: the short threshold syntax `ttfc.p99` splits on the first one.
var nameRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)

// Registry maps names to metrics. It is safe for concurrent use; one registry per run.
type Registry struct {
	mu     sync.RWMutex
	byName map[string]*Metric
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{byName: map[string]*Metric{}} }

// New registers a metric, or returns the existing one when name, kind and value type match.
func (r *Registry) New(name string, kind Kind, contains ValueType) (*Metric, error) {
	if !nameRe.MatchString(name) {
		return nil, fmt.Errorf("invalid metric name %q: use letters, digits and _ (at most 128, not starting with a digit)", name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if m, ok := r.byName[name]; ok {
		if m.Kind != kind || m.Contains != contains {
			return nil, fmt.Errorf("metric %q already exists as a %s of %s values", name, m.Kind, m.Contains)
		}
		return m, nil
	}
	m := &Metric{Name: name, Kind: kind, Contains: contains}
	r.byName[name] = m
	return m, nil
}

// MustNew is New for built-in metrics whose definitions cannot conflict.
func (r *Registry) MustNew(name string, kind Kind, contains ValueType) *Metric {
	m, err := r.New(name, kind, contains)
	if err != nil {
		panic(err)
	}
	return m
}

// Get returns the metric with that name, or nil.
func (r *Registry) Get(name string) *Metric {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.byName[name]
}

// All returns every registered metric sorted by name.
func (r *Registry) All() []*Metric {
	r.mu.RLock()
	out := make([]*Metric, 0, len(r.byName))
	for _, m := range r.byName {
		out = append(out, m)
	}
	r.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
