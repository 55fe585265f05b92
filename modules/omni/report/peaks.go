package report

import (
	"maps"
	"math"
	"slices"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/record"
)

// timeline keeps what the 1-second peaks of §4.2 need without keeping requests: per
// millisecond of the run's timeline (record.Record.Offset), the output tokens that arrived and the change
// in active requests, in one pair of arrays per second that saw an event (8 kB). t0, the
// earliest successful start, is known only at the end, so the buckets are cut then.
//
// The cut is exact to the millisecond: buckets start at t0 rounded down to a whole
// millisecond of the origin, which is §4.2's rule whenever t0 falls on one, and
// otherwise moves every bucket boundary earlier by less than 1 ms.
type timeline struct {
	first, last time.Duration // earliest successful start, latest end; first > last while empty
	seconds     map[int64]*msCounts
}

// msCounts is one second of the origin, by millisecond.
type msCounts struct {
	tokens [1000]int32
	// active gets +1 at a request's start and -1 one second after its end: summed up to a
	// bucket's last millisecond it gives the requests whose start bucket ≤ that bucket ≤
	// their end bucket, so back-to-back requests share a bucket as upstream counts them.
	active [1000]int32
}

func newTimeline() timeline {
	return timeline{first: math.MaxInt64, last: math.MinInt64, seconds: map[int64]*msCounts{}}
}

// at returns the counters of the millisecond holding t.
func (tl *timeline) at(t time.Duration) (*msCounts, int) {
	ms := floorDiv(int64(t), int64(time.Millisecond))
	sec := floorDiv(ms, 1000)
	c := tl.seconds[sec]
	if c == nil {
		c = new(msCounts)
		tl.seconds[sec] = c
	}
	return c, int(ms - sec*1000)
}

// add counts a successful request: its token times are start + TTFT, then one per ITL
// entry, cumulatively. Latest upstream skips requests without text, so image and speech
// runs get no fake token.
func (tl *timeline) add(r *record.Record) {
	start, end := r.Offset, r.Offset+record.E2EL(r)
	tl.first, tl.last = min(tl.first, start), max(tl.last, end)
	if ttft, ok := record.TTFT(r); ok {
		t := start + ttft
		c, i := tl.at(t)
		c.tokens[i]++
		for _, gap := range record.ITL(r) {
			t += gap
			c, i = tl.at(t)
			c.tokens[i]++
		}
	}
	c, i := tl.at(start)
	c.active[i]++
	c, i = tl.at(end + time.Second)
	c.active[i]--
}

// peaks returns the largest number of output tokens and of active requests in one of the
// ceil(last − first) + 1 one-second buckets from t0; tokens outside them are not counted.
// Only the buckets that saw an event are kept, so a run's span, however long, costs
// nothing: between them the active count does not change.
func (tl *timeline) peaks() (tokens float64, concurrency int) {
	if tl.first > tl.last {
		return 0, 0
	}
	n := int64((tl.last-tl.first+time.Second-1)/time.Second) + 1
	t0 := floorDiv(int64(tl.first), int64(time.Millisecond))
	tok, active := map[int64]int{}, map[int64]int{}
	for sec, c := range tl.seconds {
		for i := range c.tokens {
			// Every start is at or after t0, so no change in active requests falls before
			// bucket 0; changes after the last bucket cannot raise a peak.
			if c.tokens[i] == 0 && c.active[i] == 0 {
				continue
			}
			if b := floorDiv(sec*1000+int64(i)-t0, 1000); b >= 0 && b < n {
				tok[b] += int(c.tokens[i])
				active[b] += int(c.active[i])
			}
		}
	}
	peak := 0
	for _, v := range tok {
		peak = max(peak, v)
	}
	running := 0
	for _, b := range slices.Sorted(maps.Keys(active)) {
		running += active[b]
		concurrency = max(concurrency, running)
	}
	return float64(peak), concurrency
}

// floorDiv is a/b rounded down, for offsets before the origin too.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
