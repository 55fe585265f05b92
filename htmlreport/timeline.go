package htmlreport

import (
	"math/rand/v2"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/record"
)

// maxBuckets bounds the timeline: past it, adjacent buckets merge and the bucket width
// doubles, so a run of any length costs at most this many buckets (1-second buckets up to
// 20 minutes, then 2, 4, … seconds) and the report's series stay quick to draw.
const maxBuckets = 1200

// reservoirSize bounds each bucket's latency values: p50/p90/p99 bands of up to this many
// values per bucket are exact, beyond it they come from a uniform sample.
const reservoirSize = 256

// bandMeasures are the latencies drawn over time, each with p50/p90/p99 bands.
var bandMeasures = [...]record.Measure{record.MeasureNamed("ttft"), record.MeasureNamed("itl"),
	record.MeasureNamed("e2el"), record.MeasureNamed("audio_ttfp")}

// timeline counts per bucket of the run's timeline what happened in it: requests that
// started, finished, failed; time in flight (for the mean concurrency); output tokens
// and audio seconds that arrived; and the latencies of the requests that started in it.
type timeline struct {
	width   time.Duration
	buckets []bucket
	rng     *rand.Rand // seeded: a report of the same records is the same report
}

type bucket struct {
	started, finished, failed, interrupted int64
	inFlight                               time.Duration // Σ over requests of their time in flight within the bucket
	tokens, audioSeconds                   float64
	bands                                  [len(bandMeasures)]reservoir
}

// reservoir is a uniform sample of a bucket's values and how many there were.
type reservoir struct {
	seen   int64
	values []float32
}

func newTimeline() *timeline {
	return &timeline{width: time.Second, rng: rand.New(rand.NewPCG(1, 2))}
}

// at returns the bucket holding offset t, growing (and coarsening) the timeline to it.
func (tl *timeline) at(t time.Duration) *bucket {
	t = max(t, 0)
	i := int(t / tl.width)
	for i >= maxBuckets {
		tl.coarsen()
		i = int(t / tl.width)
	}
	for len(tl.buckets) <= i {
		tl.buckets = append(tl.buckets, bucket{})
	}
	return &tl.buckets[i]
}

// coarsen doubles the width, merging bucket pairs.
func (tl *timeline) coarsen() {
	merged := make([]bucket, (len(tl.buckets)+1)/2)
	for i := range tl.buckets {
		tl.merge(&merged[i/2], &tl.buckets[i])
	}
	tl.buckets, tl.width = merged, tl.width*2
}

func (tl *timeline) merge(into, b *bucket) {
	into.started += b.started
	into.finished += b.finished
	into.failed += b.failed
	into.interrupted += b.interrupted
	into.inFlight += b.inFlight
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
	fromA := int(float64(reservoirSize) * float64(a.seen) / float64(out.seen))
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
	return values[:n]
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
	start, end := r.Offset, r.Offset+r.End
	tl.at(end) // grow first: at may coarsen, and bucket pointers must stay valid
	tl.at(start).started++
	switch {
	case r.OK():
		tl.at(end).finished++
	case r.Interrupted():
		tl.at(end).interrupted++
	default:
		tl.at(end).failed++
	}
	tl.spread(start, end)
	if !r.OK() {
		return
	}
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

// spread adds the request's time in flight to every bucket it overlaps.
func (tl *timeline) spread(start, end time.Duration) {
	start = max(start, 0)
	for t := start; t < end; {
		b := tl.at(t)
		next := (t/tl.width + 1) * tl.width
		b.inFlight += min(next, end) - t
		t = next
	}
}
