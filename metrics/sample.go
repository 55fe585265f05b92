package metrics

import "time"

// Sample is one measured value of a metric.
type Sample struct {
	Metric *Metric
	Tags   *TagSet // indexed: part of the series identity
	Time   time.Time
	Value  float64
	// Metadata is not indexed (vu, iter, request ids): outputs write it, sinks ignore it.
	Metadata map[string]string
}

// Collector receives batches of samples. Implementations must not hold a lock while they
// compute anything expensive: VUs call Collect on their hot path.
type Collector interface {
	Collect(samples []Sample)
}

// CollectorFunc adapts a function to a Collector.
type CollectorFunc func([]Sample)

// Collect calls f.
func (f CollectorFunc) Collect(s []Sample) { f(s) }
