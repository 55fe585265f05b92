package metrics

import (
	"errors"
	"math"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultSeriesWarning is the number of distinct series past which the pipeline warns.
const DefaultSeriesWarning = 10_000

// Pipeline is the run's Collector. VUs hand it batches through a buffered channel; one
// goroutine folds them into one sink per metric and per sub-metric and forwards them to
// outputs. Snapshots are copies taken by that goroutine, so percentiles are computed on
// the caller's goroutine and never hold up Collect.
type Pipeline struct {
	cfg pipelineConfig
	in  chan message

	// mu only orders Collect against Stop: Collect holds it shared while it sends.
	mu      sync.RWMutex
	stopped bool
	late    atomic.Int64 // samples collected after Stop, dropped

	start time.Time
	done  chan struct{}
	final *Snapshot

	// Owned by the fold goroutine once started.
	entries map[*Metric]*entry
	subs    map[*Metric][]*subEntry
	series  map[seriesKey]struct{}
	checks  map[[2]string]*RateSink
	order   [][2]string
	groups  map[string]bool
	gorder  []string
	invalid int64
	warned  bool
}

type pipelineConfig struct {
	budget     int
	buffer     int
	seriesWarn int
	logf       func(format string, args ...any)
	outputs    []Output
	now        func() time.Time
}

// PipelineOption configures a Pipeline.
type PipelineOption func(*pipelineConfig)

// WithTrendBudget sets how many values each Trend sink keeps exactly.
func WithTrendBudget(n int) PipelineOption { return func(c *pipelineConfig) { c.budget = n } }

// WithBuffer sets the channel capacity in batches (default 1024).
func WithBuffer(n int) PipelineOption { return func(c *pipelineConfig) { c.buffer = n } }

// WithSeriesWarning sets the distinct-series count past which the logger is called once.
func WithSeriesWarning(n int) PipelineOption { return func(c *pipelineConfig) { c.seriesWarn = n } }

// WithLogger receives the pipeline's warnings.
func WithLogger(logf func(format string, args ...any)) PipelineOption {
	return func(c *pipelineConfig) { c.logf = logf }
}

// WithOutputs makes the fold goroutine hand every batch to outs (which must not block).
func WithOutputs(outs ...Output) PipelineOption {
	return func(c *pipelineConfig) { c.outputs = append(c.outputs, outs...) }
}

// WithClock replaces time.Now for the run's elapsed time (tests).
func WithClock(now func() time.Time) PipelineOption { return func(c *pipelineConfig) { c.now = now } }

type message struct {
	batch   []Sample
	derived bool // computed from records (CollectDerived)
	snap    chan *Snapshot
	// only limits a snapshot to these metric and sub-metric names; nil copies all.
	only map[string]bool
}

type entry struct {
	sink     Sink
	subs     []*subEntry
	isChecks bool // the built-in checks Rate: also counted per group and check
	isGroups bool // group_duration: its group tags build the group tree
}

type subEntry struct {
	SubMetric
	sink Sink
}

type seriesKey struct {
	m    *Metric
	tags string
}

// NewPipeline returns a pipeline; call AddSubMetric as needed, then Start.
func NewPipeline(opts ...PipelineOption) *Pipeline {
	cfg := pipelineConfig{budget: DefaultTrendBudget, buffer: 1024, seriesWarn: DefaultSeriesWarning,
		logf: func(string, ...any) {}, now: time.Now}
	for _, o := range opts {
		o(&cfg)
	}
	return &Pipeline{
		cfg: cfg, in: make(chan message, cfg.buffer), done: make(chan struct{}),
		entries: map[*Metric]*entry{}, subs: map[*Metric][]*subEntry{},
		series: map[seriesKey]struct{}{}, checks: map[[2]string]*RateSink{}, groups: map[string]bool{},
	}
}

// ErrStarted is returned by AddSubMetric once the pipeline runs.
var ErrStarted = errors.New("metrics: pipeline already started")

// AddSubMetric makes the pipeline keep a sink for m's samples that carry every tag of
// sel (threshold selectors). It must be called before Start; adding one twice is a no-op.
func (p *Pipeline) AddSubMetric(m *Metric, sel *TagSet) error {
	if !p.start.IsZero() {
		return ErrStarted
	}
	name := SubMetricName(m.Name, sel)
	for _, s := range p.subs[m] {
		if s.Name == name {
			return nil
		}
	}
	p.subs[m] = append(p.subs[m], &subEntry{SubMetric{name, m, sel}, p.newSink(m.Kind)})
	return nil
}

func (p *Pipeline) newSink(k Kind) Sink {
	if k == Trend {
		return NewTrendSink(p.cfg.budget)
	}
	return NewSink(k)
}

// Start starts the fold goroutine; elapsed time counts from here.
func (p *Pipeline) Start() {
	p.start = p.cfg.now()
	go p.fold()
}

// Collect implements Collector. The pipeline keeps the slice: callers must not change
// it afterwards. Collect blocks only when the fold goroutine is a full buffer behind;
// after Stop, samples are dropped and counted (Late).
func (p *Pipeline) Collect(batch []Sample) { p.send(batch, false) }

// CollectDerived is Collect for samples computed from request records: they are folded
// alike, and outputs that write the records themselves leave them out.
func (p *Pipeline) CollectDerived(batch []Sample) { p.send(batch, true) }

func (p *Pipeline) send(batch []Sample, derived bool) {
	if len(batch) == 0 {
		return
	}
	p.mu.RLock()
	if p.stopped {
		p.mu.RUnlock()
		p.late.Add(int64(len(batch)))
		return
	}
	p.in <- message{batch: batch, derived: derived}
	p.mu.RUnlock()
}

// Snapshot returns a copy of every sink that includes all samples collected before the
// call. After Stop it returns the final snapshot.
func (p *Pipeline) Snapshot() *Snapshot { return p.snapshotOf(nil) }

// SnapshotOf is Snapshot limited to the named metrics and sub-metrics: thresholds are
// checked every second, and copying every approximate Trend's histogram (hundreds of kB
// each) would hold up folding for sinks no threshold reads.
func (p *Pipeline) SnapshotOf(names ...string) *Snapshot {
	only := make(map[string]bool, len(names))
	for _, n := range names {
		only[n] = true
	}
	return p.snapshotOf(only)
}

func (p *Pipeline) snapshotOf(only map[string]bool) *Snapshot {
	p.mu.RLock()
	if p.stopped {
		p.mu.RUnlock()
		<-p.done
		return p.final
	}
	reply := make(chan *Snapshot, 1)
	p.in <- message{snap: reply, only: only}
	p.mu.RUnlock()
	return <-reply
}

// Stop drains every collected sample and returns the final snapshot. It may be called
// more than once; samples collected after Stop are dropped and counted by Late.
func (p *Pipeline) Stop() *Snapshot {
	p.mu.Lock()
	if !p.stopped {
		if p.start.IsZero() {
			p.Start()
		}
		p.stopped = true
		close(p.in)
	}
	p.mu.Unlock()
	<-p.done
	return p.final
}

// Late is the number of samples collected after Stop (and dropped).
func (p *Pipeline) Late() int64 { return p.late.Load() }

func (p *Pipeline) fold() {
	for msg := range p.in {
		if msg.snap != nil {
			msg.snap <- p.snapshot(msg.only)
			continue
		}
		p.foldBatch(msg.batch)
		for _, o := range p.cfg.outputs {
			o.AddSamples(msg.batch, msg.derived)
		}
	}
	p.final = p.snapshot(nil)
	close(p.done)
}

func (p *Pipeline) foldBatch(batch []Sample) {
	for i := range batch {
		s := &batch[i]
		if s.Metric == nil || math.IsNaN(s.Value) || math.IsInf(s.Value, 0) {
			p.invalid++
			continue
		}
		e := p.entries[s.Metric]
		if e == nil {
			e = &entry{sink: p.newSink(s.Metric.Kind), subs: p.subs[s.Metric],
				isChecks: s.Metric.Name == "checks" && s.Metric.Kind == Rate,
				isGroups: s.Metric.Name == "group_duration"}
			p.entries[s.Metric] = e
		}
		e.sink.Add(*s)
		for _, sub := range e.subs {
			if s.Tags.Contains(sub.Selector) {
				sub.sink.Add(*s)
			}
		}
		p.countSeries(s)
		if e.isChecks {
			p.countCheck(s)
		} else if e.isGroups {
			g, _ := s.Tags.Get("group")
			p.seeGroup(g)
		}
	}
}

func (p *Pipeline) countSeries(s *Sample) {
	k := seriesKey{s.Metric, s.Tags.Key()}
	if _, ok := p.series[k]; ok {
		return
	}
	p.series[k] = struct{}{}
	if !p.warned && len(p.series) > p.cfg.seriesWarn {
		p.warned = true
		p.cfg.logf("more than %d distinct metric series (metric + tags); every series costs memory: move high-cardinality values such as ids from tags to metadata", p.cfg.seriesWarn)
	}
}

func (p *Pipeline) countCheck(s *Sample) {
	g, _ := s.Tags.Get("group")
	name, _ := s.Tags.Get("check")
	k := [2]string{g, name}
	r := p.checks[k]
	if r == nil {
		r = &RateSink{}
		p.checks[k] = r
		p.order = append(p.order, k)
		p.seeGroup(g)
	}
	r.Add(*s)
}

func (p *Pipeline) seeGroup(path string) {
	if path != "" && !p.groups[path] {
		p.groups[path] = true
		p.gorder = append(p.gorder, path)
	}
}

func (p *Pipeline) snapshot(only map[string]bool) *Snapshot {
	s := &Snapshot{
		Elapsed: p.cfg.now().Sub(p.start),
		Series:  len(p.series),
		Invalid: p.invalid,
		Groups:  append([]string(nil), p.gorder...),
		sinks:   make(map[string]Sink, len(p.entries)),
	}
	for m, e := range p.entries {
		if only != nil && !only[m.Name] {
			continue
		}
		s.Metrics = append(s.Metrics, m)
		s.sinks[m.Name] = e.sink.Clone()
	}
	sortMetrics(s.Metrics)
	for _, subs := range p.subs {
		for _, sub := range subs {
			if only != nil && !only[sub.Name] {
				continue
			}
			s.SubMetrics = append(s.SubMetrics, sub.SubMetric)
			s.sinks[sub.Name] = sub.sink.Clone()
		}
	}
	sort.Slice(s.SubMetrics, func(i, j int) bool { return s.SubMetrics[i].Name < s.SubMetrics[j].Name })
	for _, k := range p.order {
		r := p.checks[k]
		s.Checks = append(s.Checks, CheckCount{Group: k[0], Name: k[1], Passes: r.Passes, Fails: r.Fails})
	}
	return s
}
