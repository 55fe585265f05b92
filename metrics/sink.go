package metrics

import (
	"fmt"
	"time"
)

// Sink folds the samples of one metric or sub-metric. Sinks are not safe for concurrent
// use: the pipeline owns live sinks and hands out clones.
type Sink interface {
	Add(s Sample)
	// Merge folds other (a sink of the same kind) into the receiver; other is unchanged.
	Merge(other Sink) error
	// Clone returns an independent copy that later Adds to the receiver do not affect.
	Clone() Sink
	// Count is the number of samples added; zero means "no data".
	Count() int64
	// Value computes st. elapsed is the run time Counter rates divide by. ok is false
	// when the sink has no samples or does not support st.
	Value(st Stat, elapsed time.Duration) (v float64, ok bool)
}

// NewSink returns an empty sink for kind k. Trend sinks use the default budget.
func NewSink(k Kind) Sink {
	switch k {
	case Counter:
		return &CounterSink{}
	case Gauge:
		return &GaugeSink{}
	case Rate:
		return &RateSink{}
	case Trend:
		return NewTrendSink(DefaultTrendBudget)
	}
	panic(fmt.Sprintf("metrics: no sink for %s", k))
}

func mismatch(want Sink, got Sink) error {
	return fmt.Errorf("cannot merge a %T into a %T", got, want)
}

// CounterSink sums values: count is the sum, rate the sum per second of run time.
type CounterSink struct {
	N   int64
	Sum float64
}

// Add implements Sink.
func (c *CounterSink) Add(s Sample) { c.N++; c.Sum += s.Value }

// Merge implements Sink.
func (c *CounterSink) Merge(o Sink) error {
	oc, ok := o.(*CounterSink)
	if !ok {
		return mismatch(c, o)
	}
	c.N += oc.N
	c.Sum += oc.Sum
	return nil
}

// Clone implements Sink.
func (c *CounterSink) Clone() Sink { cp := *c; return &cp }

// Count implements Sink.
func (c *CounterSink) Count() int64 { return c.N }

// Value implements Sink: count, rate.
func (c *CounterSink) Value(st Stat, elapsed time.Duration) (float64, bool) {
	if c.N == 0 {
		return 0, false
	}
	switch st.Name {
	case "count":
		return c.Sum, true
	case "rate":
		if elapsed <= 0 {
			return 0, false
		}
		return c.Sum / elapsed.Seconds(), true
	}
	return 0, false
}

// GaugeSink keeps the latest value (by sample time) and the extremes.
type GaugeSink struct {
	N        int64
	Last     float64
	LastTime time.Time
	Min, Max float64
}

// Add implements Sink.
func (g *GaugeSink) Add(s Sample) {
	if g.N == 0 || s.Value < g.Min {
		g.Min = s.Value
	}
	if g.N == 0 || s.Value > g.Max {
		g.Max = s.Value
	}
	// Equal times keep arrival order, so a burst stamped with one clock tick ends on its last value.
	if g.N == 0 || !s.Time.Before(g.LastTime) {
		g.Last, g.LastTime = s.Value, s.Time
	}
	g.N++
}

// Merge implements Sink; the later of the two last values wins.
func (g *GaugeSink) Merge(o Sink) error {
	og, ok := o.(*GaugeSink)
	if !ok {
		return mismatch(g, o)
	}
	if og.N == 0 {
		return nil
	}
	if g.N == 0 {
		*g = *og
		return nil
	}
	g.Min, g.Max = min(g.Min, og.Min), max(g.Max, og.Max)
	if og.LastTime.After(g.LastTime) {
		g.Last, g.LastTime = og.Last, og.LastTime
	}
	g.N += og.N
	return nil
}

// Clone implements Sink.
func (g *GaugeSink) Clone() Sink { cp := *g; return &cp }

// Count implements Sink.
func (g *GaugeSink) Count() int64 { return g.N }

// Value implements Sink: value (the last), min, max.
func (g *GaugeSink) Value(st Stat, _ time.Duration) (float64, bool) {
	if g.N == 0 {
		return 0, false
	}
	switch st.Name {
	case "value":
		return g.Last, true
	case "min":
		return g.Min, true
	case "max":
		return g.Max, true
	}
	return 0, false
}

// RateSink counts non-zero samples (passes) against all samples.
type RateSink struct {
	Passes, Fails int64
}

// Add implements Sink.
func (r *RateSink) Add(s Sample) {
	if s.Value != 0 {
		r.Passes++
	} else {
		r.Fails++
	}
}

// Merge implements Sink.
func (r *RateSink) Merge(o Sink) error {
	or, ok := o.(*RateSink)
	if !ok {
		return mismatch(r, o)
	}
	r.Passes += or.Passes
	r.Fails += or.Fails
	return nil
}

// Clone implements Sink.
func (r *RateSink) Clone() Sink { cp := *r; return &cp }

// Count implements Sink.
func (r *RateSink) Count() int64 { return r.Passes + r.Fails }

// Value implements Sink: rate (share of non-zero samples), passes, fails.
func (r *RateSink) Value(st Stat, _ time.Duration) (float64, bool) {
	n := r.Count()
	if n == 0 {
		return 0, false
	}
	switch st.Name {
	case "rate":
		return float64(r.Passes) / float64(n), true
	case "passes":
		return float64(r.Passes), true
	case "fails":
		return float64(r.Fails), true
	}
	return 0, false
}
