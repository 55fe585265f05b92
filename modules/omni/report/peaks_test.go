package report

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/record"
)

// countsPeaks is the peaks with every second kept as counts by millisecond, as the
// timeline kept them before it kept events: the reference its lists must agree with.
func countsPeaks(recs []*record.Record) (float64, int) {
	tl := newTimeline()
	for _, r := range recs {
		if !r.OK() {
			continue
		}
		tl.add(r)
	}
	for _, s := range tl.seconds {
		if s.counts == nil {
			s.counts = new(msCounts)
			for _, e := range s.events {
				s.counts.add(int(e/1000), int(e%1000))
			}
			s.events = nil
		}
	}
	return peaks(tl)
}

// randomLoad is n requests over spanMS from startMS, a few bursts dense enough for a
// second to switch to counts, tokens now and then past the request's end (a damaged
// file), and failures.
func randomLoad(r *rand.Rand, n int, startMS, spanMS float64) []*record.Record {
	recs := make([]*record.Record, 0, n)
	for range n {
		opts := []func(*record.Record){at(startMS+r.Float64()*spanMS, r.Float64()*3000)}
		if r.IntN(5) > 0 {
			gaps := make([]float64, r.IntN(80))
			for i := range gaps {
				gaps[i] = r.Float64() * 10
			}
			opts = append(opts, text(r.Float64()*800, gaps...))
		}
		if r.IntN(20) == 0 {
			// Tokens after the end: outside the last bucket when it is the last request.
			opts = append(opts, func(q *record.Record) { q.End = ms(1) })
		}
		if r.IntN(10) == 0 {
			opts = append(opts, failed(record.KindReset))
		}
		recs = append(recs, req(opts...))
	}
	// A burst: one second that sees more than denseAfter events.
	burst := 1000*math.Floor(startMS/1000+r.Float64()*spanMS/1000) + 100
	for range denseAfter/50 + 1 {
		gaps := make([]float64, 60)
		for i := range gaps {
			gaps[i] = r.Float64() * 3
		}
		recs = append(recs, req(at(burst+r.Float64()*100, 900), text(r.Float64()*50, gaps...)))
	}
	r.Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
	return recs
}

// Seconds kept as event lists give the peaks seconds kept as counts give, wherever the
// buckets start, whatever the order the requests come in.
func TestTimelineEventsAgreeWithCounts(t *testing.T) {
	t.Parallel()
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 17))
		recs := randomLoad(r, 400, (r.Float64()-0.5)*20000, 5000+r.Float64()*60000)
		wantTok, wantConc := countsPeaks(recs)
		a := NewAccumulator(Options{})
		for _, q := range recs {
			a.Add(q)
		}
		dense := 0
		for _, s := range a.timeline.seconds {
			if s.counts != nil {
				dense++
			}
		}
		if dense == 0 || dense == len(a.timeline.seconds) {
			t.Fatalf("seed %d: %d of %d seconds keep counts; the case wants both kinds", seed, dense, len(a.timeline.seconds))
		}
		got := a.Result(0)
		if got.PeakOutputTokens != wantTok || got.PeakConcurrency != wantConc {
			t.Errorf("seed %d: peaks %v, %d; with counts %v, %d", seed, got.PeakOutputTokens, got.PeakConcurrency, wantTok, wantConc)
		}
	}
}

// A second costs what its events cost, never more than its counts: a long, light run
// keeps a few bytes a second where counts kept 8 kB, and a heavy second no more than 8 kB.
func TestTimelineFootprint(t *testing.T) {
	t.Parallel()
	// One request a second for 10,000 s, 20 tokens each: 22 events a second.
	a := NewAccumulator(Options{})
	gaps := make([]float64, 19)
	for i := range gaps {
		gaps[i] = 5
	}
	q := req(at(0, 200), text(50, gaps...))
	const seconds = 10_000
	for i := range seconds {
		q.Offset = time.Duration(i) * time.Second
		a.Add(q)
	}
	// 22 events are 44 bytes, in a list at most twice as long; the last request's end
	// falls in one more second.
	if got, limit := a.timeline.footprint(), (seconds+1)*2*44; got > limit {
		t.Errorf("a light run keeps %d bytes for %d seconds; want at most %d", got, seconds, limit)
	}
	// 5,000 requests in one millisecond, 10 tokens each: counts, 8 kB, for the second of
	// their starts and tokens and for the one of their ends.
	b := NewAccumulator(Options{})
	heavy := req(at(7*3600_000, 10), text(5, 0, 0, 0, 0, 0, 0, 0, 0, 0))
	for range 5000 {
		b.Add(heavy)
	}
	if got := b.timeline.footprint(); got > 2*msCountsSize {
		t.Errorf("two heavy seconds keep %d bytes; want at most %d", got, 2*msCountsSize)
	}
	if r := b.Result(time.Second); r.PeakOutputTokens != 50_000 || r.PeakConcurrency != 5000 {
		t.Errorf("heavy second's peaks = %v, %d; want 50000, 5000", r.PeakOutputTokens, r.PeakConcurrency)
	}
}

// With several scenarios each event is kept once, in its scenario's timeline (or the
// section's own, for a request of no listed scenario), and the whole run's peaks are
// those one timeline of every request gives.
func TestSectionKeepsEachEventOnce(t *testing.T) {
	t.Parallel()
	for seed := range uint64(10) {
		r := rand.New(rand.NewPCG(seed, 23))
		recs := randomLoad(r, 300, 0, 20000)
		names := []string{"chat", "tts", "", "unlisted"}
		s := NewSection(SectionOptions{Scenarios: []string{"chat", "tts", "idle"}})
		whole := NewAccumulator(Options{})
		for _, q := range recs {
			q.Scenario = names[r.IntN(len(names))]
			s.Add(q)
			whole.Add(q)
		}
		if s.all.acc.timeline != nil {
			t.Fatal("the whole run keeps events of its own")
		}
		kept := s.others.footprint()
		for _, sp := range s.byScenario {
			kept += sp.acc.timeline.footprint()
		}
		if alone := whole.timeline.footprint(); kept > 2*alone {
			t.Errorf("seed %d: the scenarios keep %d bytes of events, one timeline of them all %d", seed, kept, alone)
		}
		got, want := s.all.acc.Result(0), whole.Result(0)
		if got.PeakOutputTokens != want.PeakOutputTokens || got.PeakConcurrency != want.PeakConcurrency {
			t.Errorf("seed %d: whole run's peaks %v, %d; one timeline gives %v, %d", seed,
				got.PeakOutputTokens, got.PeakConcurrency, want.PeakOutputTokens, want.PeakConcurrency)
		}
	}
}
