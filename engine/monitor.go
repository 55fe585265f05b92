package engine

import (
	"context"
	"time"

	"github.com/omnik-dev/omnik/metrics"
)

// monitor emits the VU gauges and the client's load (from sample, when set) and calls
// the tick hook about every second.
func (r *Run) monitor(ctx context.Context, sample ClientSampler) {
	t := time.NewTicker(r.tickEvery)
	defer t.Stop()
	r.emitGauges(time.Now())
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.pool.changed:
			r.emitGauges(time.Now())
		case now := <-t.C:
			r.emitGauges(now)
			if sample != nil && r.collector != nil {
				r.emitClient(now, sample())
			}
			if r.onTick == nil {
				continue
			}
			if abort, reason := r.onTick(r.elapsed()); abort {
				r.abort(ExitThresholdsFailed, reason)
			}
		}
	}
}

// emitGauges sends vus (VUs borrowed by executors) and vus_max (VUs initialised).
func (r *Run) emitGauges(now time.Time) {
	if r.collector == nil {
		return
	}
	tags := metrics.NewTagSet(r.opts.Tags)
	var batch []metrics.Sample
	if m := r.builtin.VUs; m != nil {
		// The window's peak, then the current count: a gauge keeps min, max and last,
		// and a burst between two samples still reaches max.
		peak, cur := r.pool.takePeak(), r.pool.borrowed.Load()
		if peak > cur {
			batch = append(batch, metrics.Sample{Metric: m, Tags: tags, Time: now, Value: float64(peak)})
		}
		batch = append(batch, metrics.Sample{Metric: m, Tags: tags, Time: now, Value: float64(cur)})
	}
	if m := r.builtin.VUsMax; m != nil {
		batch = append(batch, metrics.Sample{Metric: m, Tags: tags, Time: now, Value: float64(r.pool.initialized.Load())})
	}
	if len(batch) > 0 {
		r.collector.Collect(batch)
	}
}

// emit sends one sample.
func (r *Run) emit(m *metrics.Metric, tags *metrics.TagSet, v float64, t time.Time) {
	if r.collector == nil || m == nil {
		return
	}
	r.collector.Collect([]metrics.Sample{{Metric: m, Tags: tags, Time: t, Value: v}})
}
