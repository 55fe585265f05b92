package report

import (
	"maps"
	"math"
	"slices"
	"time"
	"unsafe"

	"github.com/omnik-dev/omnik/modules/omni/record"
)

// timeline keeps what the 1-second peaks of §4.2 need without keeping requests: per
// millisecond of the run's timeline (record.Record.Offset), the output tokens that arrived and the change
// in active requests, for each second that saw an event. t0, the earliest successful
// start, is known only at the end, so the buckets are cut then.
//
// A second keeps its events as a list, 2 bytes each, until that list would outgrow the
// second's counters by millisecond (8 kB), which replace it then: a second costs what
// its events cost, at most 8 kB, however many there are.
//
// The cut is exact to the millisecond: buckets start at t0 rounded down to a whole
// millisecond of the origin, which is §4.2's rule whenever t0 falls on one, and
// otherwise moves every bucket boundary earlier by less than 1 ms.
type timeline struct {
	first, last time.Duration // earliest successful start, latest end; first > last while empty
	seconds     map[int64]*second
}

// second is what one second of the origin saw: events until there are denseAfter of
// them, then counts.
type second struct {
	// events are the second's events in arrival order, each its millisecond plus
	// 1000 × its kind (eventToken, eventStart, eventStop).
	events []uint16
	counts *msCounts // set once the events were too many; events is nil then
}

// The kinds of event, as the thousands of an event.
const (
	eventToken = 0 // an output token arrived
	eventStart = 1 // a request started: active +1
	eventStop  = 2 // one second after a request ended: active −1
)

// denseAfter is the number of events past which a second keeps counts: at 2 bytes an
// event, its list is then as large as its counts.
const denseAfter = msCountsSize / 2

const msCountsSize = int(unsafe.Sizeof(msCounts{}))

// msCounts is one second of the origin, by millisecond.
type msCounts struct {
	tokens [1000]int32
	// active gets +1 at a request's start and -1 one second after its end: summed up to a
	// bucket's last millisecond it gives the requests whose start bucket ≤ that bucket ≤
	// their end bucket, so back-to-back requests share a bucket as upstream counts them.
	active [1000]int32
}

func (c *msCounts) add(kind, i int) {
	switch kind {
	case eventToken:
		c.tokens[i]++
	case eventStart:
		c.active[i]++
	case eventStop:
		c.active[i]--
	}
}

func newTimeline() *timeline {
	return &timeline{first: math.MaxInt64, last: math.MinInt64, seconds: map[int64]*second{}}
}

// event counts one event of kind in the millisecond holding t.
func (tl *timeline) event(t time.Duration, kind int) {
	ms := floorDiv(int64(t), int64(time.Millisecond))
	sec := floorDiv(ms, 1000)
	tl.eventIn(sec, kind, int(ms-sec*1000))
}

// eventIn counts one event of kind in millisecond i of second sec.
func (tl *timeline) eventIn(sec int64, kind, i int) {
	s := tl.second(sec)
	if s.counts == nil && len(s.events) < denseAfter {
		s.events = append(s.events, uint16(kind*1000+i))
		return
	}
	s.dense().add(kind, i)
}

func (tl *timeline) second(sec int64) *second {
	s := tl.seconds[sec]
	if s == nil {
		s = &second{}
		tl.seconds[sec] = s
	}
	return s
}

// dense turns the second's events into its counts, once.
func (s *second) dense() *msCounts {
	if s.counts == nil {
		s.counts = new(msCounts)
		for _, e := range s.events {
			s.counts.add(int(e/1000), int(e%1000))
		}
		s.events = nil
	}
	return s.counts
}

// absorb adds o's events to tl's, as if tl had seen o's requests too.
func (tl *timeline) absorb(o *timeline) {
	tl.first, tl.last = min(tl.first, o.first), max(tl.last, o.last)
	for sec, s := range o.seconds {
		if s.counts == nil {
			for _, e := range s.events {
				tl.eventIn(sec, int(e/1000), int(e%1000))
			}
			continue
		}
		d := tl.second(sec).dense()
		for i := range d.tokens {
			d.tokens[i] += s.counts.tokens[i]
			d.active[i] += s.counts.active[i]
		}
	}
}

// add counts a successful request: its token times are start + TTFT, then one per ITL
// entry, cumulatively. Latest upstream skips requests without text, so image and speech
// runs get no fake token.
func (tl *timeline) add(r *record.Record) {
	start, end := r.Offset, r.Offset+record.E2EL(r)
	tl.first, tl.last = min(tl.first, start), max(tl.last, end)
	if ttft, ok := record.TTFT(r); ok {
		t := start + ttft
		tl.event(t, eventToken)
		for _, gap := range record.ITL(r) {
			t += gap
			tl.event(t, eventToken)
		}
	}
	tl.event(start, eventStart)
	tl.event(end+time.Second, eventStop)
}

// peaks returns the largest number of output tokens and of active requests in one of the
// ceil(last − first) + 1 one-second buckets from t0 of the requests of the timelines
// together, as one timeline of them all would; tokens outside the buckets are not
// counted. Only the buckets that saw an event are kept, so a run's span, however long,
// costs nothing: between them the active count does not change.
func peaks(tls ...*timeline) (tokens float64, concurrency int) {
	first, last := time.Duration(math.MaxInt64), time.Duration(math.MinInt64)
	for _, tl := range tls {
		first, last = min(first, tl.first), max(last, tl.last)
	}
	if first > last {
		return 0, 0
	}
	n := int64((last-first+time.Second-1)/time.Second) + 1
	t0 := floorDiv(int64(first), int64(time.Millisecond))
	tok, active := map[int64]int{}, map[int64]int{}
	// bucket returns the bucket of millisecond i of second sec, ok false outside them.
	// Every start is at or after t0, so no change in active requests falls before
	// bucket 0; changes after the last bucket cannot raise a peak.
	bucket := func(sec int64, i int) (int64, bool) {
		b := floorDiv(sec*1000+int64(i)-t0, 1000)
		return b, b >= 0 && b < n
	}
	for _, tl := range tls {
		for sec, s := range tl.seconds {
			if c := s.counts; c != nil {
				for i := range c.tokens {
					if c.tokens[i] == 0 && c.active[i] == 0 {
						continue
					}
					if b, ok := bucket(sec, i); ok {
						tok[b] += int(c.tokens[i])
						active[b] += int(c.active[i])
					}
				}
				continue
			}
			for _, e := range s.events {
				b, ok := bucket(sec, int(e%1000))
				if !ok {
					continue
				}
				switch e / 1000 {
				case eventToken:
					tok[b]++
				case eventStart:
					active[b]++
				case eventStop:
					active[b]--
				}
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

// footprint is the bytes the timeline keeps for its seconds' events and counts (not the
// map that indexes them).
func (tl *timeline) footprint() int {
	n := 0
	for _, s := range tl.seconds {
		n += 2 * cap(s.events)
		if s.counts != nil {
			n += msCountsSize
		}
	}
	return n
}

// floorDiv is a/b rounded down, for offsets before the origin too.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
