package htmlreport

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// maxBuckets bounds the timeline: past it, adjacent buckets merge and the bucket width
// doubles, so a run of any length costs at most this many buckets (1-second buckets up to
// 20 minutes, then 2, 4, … seconds) and the report's series stay quick to draw.
const maxBuckets = 1200

// reservoirSize bounds each bucket's latency values: p50/p90/p99 bands of up to this many
// values per bucket are exact, beyond it they come from a uniform sample.
const reservoirSize = 256

// drainMargin is how far past the run's duration the series reach: requests the end of
// the run cut off are drained for up to 5 s (testrun's drainTimeout). Events later than
// that are counted, not drawn: one absurd record must not stretch the axis.
const drainMargin = 5 * time.Second

// bandMeasures are the latencies drawn over time, each with p50/p90/p99 bands.
var bandMeasures = [...]record.Measure{record.MeasureNamed("ttft"), record.MeasureNamed("itl"),
	record.MeasureNamed("e2el"), record.MeasureNamed("audio_ttfp")}

// timeline counts per bucket of the run's timeline what happened in it: requests that
// started, finished, failed; time in flight (for the mean concurrency); output tokens
// and audio seconds that arrived; and the latencies of the requests that started in it.
// Only buckets that saw an event are kept, so a far-off record costs a bucket, not the
// buckets up to it.
type timeline struct {
	width   time.Duration
	buckets map[int64]*bucket
	rng     *rand.Rand // seeded: a report of the same records is the same report
}

type bucket struct {
	started, finished, failed, interrupted int64
	latest                                 time.Duration // the bucket's latest event
	// A request's time in flight is inFlight where it starts and ends, and whole buckets
	// in between: through changes +1 the bucket after its start and −1 at its end, so
	// the requests in flight through bucket b are the sum of through up to b.
	inFlight             time.Duration
	through              int64
	tokens, audioSeconds float64
	bands                [len(bandMeasures)]reservoir
}

// reservoir is a uniform sample of a bucket's values and how many there were.
type reservoir struct {
	seen   int64
	values []float32
}

func newTimeline() *timeline {
	return &timeline{width: time.Second, buckets: map[int64]*bucket{}, rng: rand.New(rand.NewPCG(1, 2))}
}

// at returns the bucket holding offset t (the first for times before the origin).
func (tl *timeline) at(t time.Duration) *bucket {
	t = max(t, 0)
	i := int64(t / tl.width)
	b := tl.buckets[i]
	if b == nil {
		b = &bucket{}
		tl.buckets[i] = b
	}
	b.latest = max(b.latest, t)
	return b
}

// fit coarsens the timeline until it keeps at most maxBuckets buckets.
func (tl *timeline) fit() {
	for len(tl.buckets) > maxBuckets {
		tl.coarsen()
	}
}

// coarsen doubles the width, merging bucket pairs.
func (tl *timeline) coarsen() {
	merged := make(map[int64]*bucket, len(tl.buckets)/2+1)
	for i, b := range tl.buckets {
		into := merged[i/2]
		if into == nil {
			into = &bucket{}
			merged[i/2] = into
		}
		tl.merge(into, b, i%2 == 1)
	}
	tl.buckets, tl.width = merged, tl.width*2
}

// merge adds b, the first or the second half of into, to into.
func (tl *timeline) merge(into, b *bucket, second bool) {
	into.started += b.started
	into.finished += b.finished
	into.failed += b.failed
	into.interrupted += b.interrupted
	into.latest = max(into.latest, b.latest)
	into.inFlight += b.inFlight
	into.through += b.through
	if second {
		// Requests through the whole first half count a full (doubled) bucket in the
		// merged one, and only half of one belongs to them: the first half's width.
		into.inFlight -= time.Duration(b.through) * tl.width
	}
	into.tokens += b.tokens
	into.audioSeconds += b.audioSeconds
	for k := range into.bands {
		into.bands[k] = tl.mergeSamples(into.bands[k], b.bands[k])
	}
}

// mergeSamples is a uniform sample of the union of a's and b's values: each keeps its
// share of the slots by how many values it stood for.
func (tl *timeline) mergeSamples(a, b reservoir) reservoir {
	out := reservoir{seen: a.seen + b.seen}
	if len(a.values)+len(b.values) <= reservoirSize {
		out.values = append(append(out.values, a.values...), b.values...)
		return out
	}
	fromA := int(math.Round(float64(reservoirSize) * float64(a.seen) / float64(out.seen)))
	fromA = min(max(fromA, reservoirSize-len(b.values)), len(a.values))
	out.values = append(tl.pick(a.values, fromA), tl.pick(b.values, reservoirSize-fromA)...)
	return out
}

// pick is n of values chosen at random (a partial Fisher-Yates shuffle, in place).
func (tl *timeline) pick(values []float32, n int) []float32 {
	for i := range n {
		j := i + tl.rng.IntN(len(values)-i)
		values[i], values[j] = values[j], values[i]
	}
	return values[:n:n]
}

// sample adds v to a bucket's reservoir (Vitter's algorithm R).
func (tl *timeline) sample(r *reservoir, v float32) {
	r.seen++
	if len(r.values) < reservoirSize {
		r.values = append(r.values, v)
		return
	}
	if j := tl.rng.Int64N(r.seen); j < reservoirSize {
		r.values[j] = v
	}
}

// add places one record on the timeline.
func (tl *timeline) add(r *record.Record) {
	start, end := max(r.Offset, 0), max(r.Offset+r.End, 0)
	tl.at(start).started++
	switch {
	case r.OK():
		tl.at(end).finished++
	case r.Interrupted():
		tl.at(end).interrupted++
	default:
		tl.at(end).failed++
	}
	tl.inFlight(start, end)
	if r.OK() {
		tl.outputs(r, start)
	}
	tl.fit()
}

// inFlight adds the request's time in flight, [start, end).
func (tl *timeline) inFlight(start, end time.Duration) {
	if end <= start {
		return
	}
	first, last := start/tl.width, end/tl.width
	if first == last {
		tl.at(start).inFlight += end - start
		return
	}
	tl.at(start).inFlight += (first+1)*tl.width - start
	tl.at(end).inFlight += end - last*tl.width
	if last > first+1 {
		tl.at((first+1)*tl.width).through++
		tl.at(end).through--
	}
}

// outputs adds a successful request's tokens and audio where they arrived, and its
// latencies where it started.
func (tl *timeline) outputs(r *record.Record, start time.Duration) {
	if ttft, ok := record.TTFT(r); ok {
		t := start + ttft
		tl.at(t).tokens++
		for _, gap := range record.ITL(r) {
			t += gap
			tl.at(t).tokens++
		}
	}
	if rate := r.Audio.SampleRate; rate > 0 {
		for _, c := range r.AudioChunks {
			tl.at(start + c.At).audioSeconds += float64(c.Frames) / float64(rate)
		}
	}
	b := tl.at(start)
	for k, m := range bandMeasures {
		m.Each(r, func(v float64) { tl.sample(&b.bands[k], float32(v)) })
	}
}

// series cuts the timeline into buckets from 0 to the run's end: its duration d, or the
// last event when requests ended after it, at most drainMargin later. Events past that
// are counted in Outside.
func (tl *timeline) series(d time.Duration) Timeline {
	end := d
	for _, b := range tl.buckets {
		if b.latest <= d+drainMargin {
			end = max(end, b.latest)
		}
	}
	for (end+tl.width-1)/tl.width > maxBuckets {
		tl.coarsen()
	}
	n := int64((end + tl.width - 1) / tl.width)
	w := tl.width.Seconds()
	out := Timeline{BucketS: Float(w), Bands: map[string]Bands{}, T: []Float{}, Started: []int64{}, Finished: []int64{},
		Failed: []int64{}, Interrupted: []int64{}, Concurrency: []Float{}, Tokens: []Float{}, Audio: []Float{}}
	bands := make([]Bands, len(bandMeasures))
	for k := range bands {
		bands[k] = Bands{P50: []Float{}, P90: []Float{}, P99: []Float{}}
	}
	var through int64
	for i := range n {
		b := tl.buckets[i]
		if b == nil {
			b = &bucket{}
		}
		through += b.through
		out.T = append(out.T, Float(float64(i)*w))
		out.Started = append(out.Started, b.started)
		out.Finished = append(out.Finished, b.finished)
		out.Failed = append(out.Failed, b.failed)
		out.Interrupted = append(out.Interrupted, b.interrupted)
		// The last bucket may hold less than a bucket of the run: rates divide by what it holds.
		span := min(w, (end - time.Duration(i)*tl.width).Seconds())
		inFlight := b.inFlight + time.Duration(through)*tl.width
		out.Concurrency = append(out.Concurrency, Float(inFlight.Seconds()/span))
		out.Tokens = append(out.Tokens, Float(b.tokens/span))
		out.Audio = append(out.Audio, Float(b.audioSeconds/span))
		for k := range bandMeasures {
			p50, p90, p99 := quantiles(b.bands[k].values)
			bands[k].P50 = append(bands[k].P50, p50)
			bands[k].P90 = append(bands[k].P90, p90)
			bands[k].P99 = append(bands[k].P99, p99)
		}
	}
	for i, b := range tl.buckets {
		if i >= n {
			out.Outside += b.started + b.finished + b.failed + b.interrupted
		}
	}
	for k, m := range bandMeasures {
		out.Bands[m.Name] = bands[k]
	}
	return out
}

// quantiles are the values' p50, p90 and p99 as the summary computes percentiles, NaN
// when there are none.
func quantiles(values []float32) (p50, p90, p99 Float) {
	if len(values) == 0 {
		nan := Float(math.NaN())
		return nan, nan, nan
	}
	s := metrics.NewTrendSink(len(values))
	for _, v := range values {
		s.AddValue(float64(v))
	}
	q := func(p float64) Float { return Float(value(s, metrics.Percentile(p))) }
	return q(50), q(90), q(99)
}
