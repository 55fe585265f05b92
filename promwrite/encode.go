package promwrite

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/omnik-dev/omnik/metrics"
	"github.com/prometheus/prometheus/prompb"
)

// maxPerRequest is how many time series one request carries at most, as Prometheus's
// own remote write batches them (max_samples_per_send): receivers limit request sizes.
const maxPerRequest = 2000

// push is one push: the whole state at one timestamp, in requests of maxPerRequest.
type push struct {
	reqs     []*prompb.WriteRequest
	points   []int     // samples and histograms per request
	native   bool      // it carries native histograms
	zeros    []*series // the series whose first 0 it carries
	selfZero bool      // it carries the output's own counters' first 0
	final    bool      // the push at Stop
	deadline time.Time // of the push, retries and a classic resend included
}

// selfCounts are the output's own counters at the time of a push.
type selfCounts struct {
	bufferFull, capped, pushes, failed, skipped int64
}

// build encodes every series at ts (milliseconds).
func (st *state) build(ts int64, self selfCounts) *push {
	p := &push{}
	var cur []prompb.TimeSeries
	points := 0
	emit := func(ts prompb.TimeSeries) {
		cur = append(cur, ts)
		points += len(ts.Samples) + len(ts.Histograms)
		if len(cur) == maxPerRequest {
			p.reqs = append(p.reqs, &prompb.WriteRequest{Timeseries: cur})
			p.points = append(p.points, points)
			cur, points = nil, 0
		}
	}
	point := func(labels []prompb.Label, v float64) prompb.TimeSeries {
		return prompb.TimeSeries{Labels: labels, Samples: []prompb.Sample{{Value: v, Timestamp: ts}}}
	}
	for _, se := range st.order {
		name := se.fam.name
		zero := !se.zeroSent && se.zeroAt < ts
		se.zeroSent = true
		if zero {
			p.zeros = append(p.zeros, se)
		}
		sample := func(labels []prompb.Label, v float64) prompb.TimeSeries {
			s := point(labels, v)
			if zero {
				s.Samples = append([]prompb.Sample{{Value: 0, Timestamp: se.zeroAt}}, s.Samples...)
			}
			return s
		}
		switch se.fam.kind {
		case metrics.Counter:
			emit(sample(with(se.labels, name), se.sum))
		case metrics.Gauge:
			emit(sample(with(se.labels, name), se.last))
		case metrics.Rate:
			emit(sample(with(se.labels, name, prompb.Label{Name: LabelOutcome, Value: "true"}), float64(se.trues)))
			emit(sample(with(se.labels, name, prompb.Label{Name: LabelOutcome, Value: "false"}), float64(se.falses)))
		case metrics.Trend:
			if se.native != nil && st.mode != Classic {
				p.native = true
				hs := []prompb.Histogram{se.native.proto(ts)}
				if zero {
					hs = append([]prompb.Histogram{newNativeHist().proto(se.zeroAt)}, hs...)
				}
				emit(prompb.TimeSeries{Labels: with(se.labels, name), Histograms: hs})
				continue
			}
			h := se.classic
			var cum uint64
			for i, c := range h.counts {
				cum += c
				le := "+Inf"
				if i < len(h.bounds) {
					le = formatBound(h.bounds[i])
				}
				emit(sample(with(se.labels, name+"_bucket", prompb.Label{Name: labelLE, Value: le}), float64(cum)))
			}
			emit(sample(with(se.labels, name+"_sum"), h.sum))
			emit(sample(with(se.labels, name+"_count"), float64(h.count)))
		}
	}
	// The output's own counters start at 0 with the run, sent with the first push.
	p.selfZero = !st.selfZeroSent && st.start < ts
	st.selfZeroSent = true
	self0 := func(labels []prompb.Label, v float64) prompb.TimeSeries {
		s := point(labels, v)
		if p.selfZero {
			s.Samples = append([]prompb.Sample{{Value: 0, Timestamp: st.start}}, s.Samples...)
		}
		return s
	}
	st.zeroFloor = ts + 1
	id := []prompb.Label{{Name: LabelTestID, Value: st.selfID()}}
	emit(self0(with(id, selfDropped, prompb.Label{Name: "reason", Value: "buffer_full"}), float64(self.bufferFull)))
	emit(self0(with(id, selfDropped, prompb.Label{Name: "reason", Value: "series_cap"}), float64(self.capped)))
	emit(self0(with(id, selfPushes), float64(self.pushes)))
	emit(self0(with(id, selfPushesFailed), float64(self.failed)))
	emit(self0(with(id, selfPushesSkipped), float64(self.skipped)))
	if len(cur) > 0 {
		p.reqs = append(p.reqs, &prompb.WriteRequest{Timeseries: cur})
		p.points = append(p.points, points)
	}
	return p
}

// with is labels plus __name__ and extra, sorted by name as remote write requires.
func with(labels []prompb.Label, name string, extra ...prompb.Label) []prompb.Label {
	out := make([]prompb.Label, 0, len(labels)+1+len(extra))
	out = append(out, labels...)
	out = append(out, prompb.Label{Name: "__name__", Value: name})
	out = append(out, extra...)
	slices.SortFunc(out, func(a, b prompb.Label) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// formatBound is an le value as Prometheus's clients write it.
func formatBound(b float64) string { return strconv.FormatFloat(b, 'g', -1, 64) }
