package http

import (
	"strconv"
	"time"

	"github.com/omnik-dev/omnik/metrics"
)

// Metrics are omnik/http's metrics (docs/metrics.md), k6's names: they do not collide
// with the omni module's requests, requests_failed and e2el.
type Metrics struct {
	Reqs, Failed, Duration, Waiting *metrics.Metric
	Interrupted                     *metrics.Metric // http_reqs_interrupted: cut off by the run
	DataSent, DataReceived          *metrics.Metric // the built-in data_sent and data_received
}

// RegisterMetrics registers the metrics, so thresholds on them parse before the first
// request.
func RegisterMetrics(r *metrics.Registry) *Metrics {
	return &Metrics{
		Reqs:         r.MustNew("http_reqs", metrics.Counter, metrics.Default),
		Failed:       r.MustNew("http_req_failed", metrics.Rate, metrics.Default),
		Interrupted:  r.MustNew("http_reqs_interrupted", metrics.Counter, metrics.Default),
		Duration:     r.MustNew("http_req_duration", metrics.Trend, metrics.Time),
		Waiting:      r.MustNew("http_req_waiting", metrics.Trend, metrics.Time),
		DataSent:     r.MustNew("data_sent", metrics.Counter, metrics.Data),
		DataReceived: r.MustNew("data_received", metrics.Counter, metrics.Data),
	}
}

// samples are one finished request's: counted always, timed only when it succeeded,
// as omni calls are; the failure sample carries the error kind, and a request the run
// cut off counts only as interrupted.
func (m *Metrics) samples(s *spec, r *result) []metrics.Sample {
	tags := s.tags.With("status", strconv.Itoa(r.status))
	now := r.start.Add(r.duration)
	out := make([]metrics.Sample, 0, 6)
	add := func(m *metrics.Metric, t *metrics.TagSet, v float64) {
		out = append(out, metrics.Sample{Metric: m, Tags: t, Time: now, Value: v, Metadata: s.meta})
	}
	add(m.DataSent, tags, float64(r.sent))
	add(m.DataReceived, tags, float64(r.received))
	if r.errKind == kindInterrupted {
		// The run cut it off, as an omni call is: neither a request answered nor a failure.
		add(m.Interrupted, tags, 1)
		return out
	}
	add(m.Reqs, tags, 1)
	if r.errKind != "" {
		add(m.Failed, tags.With("error", r.errKind), 1)
		return out
	}
	add(m.Failed, tags, 0)
	add(m.Duration, tags, ms(r.duration))
	add(m.Waiting, tags, ms(r.waiting))
	return out
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
