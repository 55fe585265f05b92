package report

import (
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// peaks and aggregateStages are the views aggregate_test.go and stage_test.go pin,
// computed by the Accumulator.
func peaks(reqs []Request) (float64, int) {
	r := Aggregate(reqs, 0, Options{})
	return r.PeakOutputTokens, r.PeakConcurrency
}

func aggregateStages(reqs []Request, ps []float64) []StageResult {
	return Aggregate(reqs, 0, Options{Percentiles: ps}).Stages
}

var stageTypes = []struct{ final, unit string }{
	{"text", "text"}, {"latent", "stream"}, {"audio", "audio"}, {"image", "image"},
	{"video", "video"}, {"latent", ""}, {"", "latent"}, {"text", ""},
}

func randomMS(r *rand.Rand) float64 { return math.Round(r.ExpFloat64()*40000) / 1000 }

func optMS(r *rand.Rand) *float64 {
	switch r.IntN(4) {
	case 0:
		return nil
	case 1:
		return ptr(0.0)
	}
	return ptr(randomMS(r))
}

func listMS(r *rand.Rand) []float64 {
	if r.IntN(3) == 0 {
		return nil
	}
	out := make([]float64, r.IntN(6))
	for i := range out {
		out[i] = randomMS(r)
	}
	return out
}

// randomStage draws one row; types vary per row so the kind is often decided late.
func randomStage(r *rand.Rand, id int) Stage {
	t := stageTypes[r.IntN(len(stageTypes))]
	s := Stage{ID: id, FinalOutputType: t.final, OutputUnitType: t.unit, OutputUnitCount: r.IntN(4),
		GenTimeMS: randomMS(r), ServingTTFOMS: optMS(r), TPOPMS: optMS(r), ICLMS: listMS(r),
		MeanICLMS: optMS(r), VLLMTTFTMS: randomMS(r) * float64(r.IntN(2)), VLLMTPOTMS: randomMS(r),
		VLLMITLsMS: listMS(r), VLLMMeanITLMS: optMS(r), NumTokensOut: r.IntN(100),
		AudioFrames: int64(r.IntN(3) * 24000), AudioDurationS: float64(r.IntN(3)) / 3,
		AudioRTF: float64(r.IntN(3)) / 7}
	if r.IntN(2) == 0 {
		s.Name = "s" + string(rune('a'+r.IntN(3)))
	}
	if r.IntN(3) == 0 {
		s.PostprocessMS = randomMS(r)
	}
	return s
}

// randomRequest draws a request with sub-millisecond timings, everything optional.
func randomRequest(r *rand.Rand, origin time.Duration) Request {
	d := func(max time.Duration) time.Duration { return time.Duration(r.Int64N(int64(max))) }
	q := Request{Success: r.IntN(10) > 0, Error: "", Start: origin + d(20*time.Second),
		Latency: d(5 * time.Second), InputTokens: r.IntN(500), InputAudioDuration: d(time.Second)}
	if !q.Success {
		q.Error = "HTTP 500"
	}
	if r.IntN(4) > 0 {
		q.TTFT = d(q.Latency/4 + 1)
		q.ITL = make([]time.Duration, r.IntN(30))
		for i := range q.ITL {
			q.ITL[i] = d(40 * time.Millisecond)
		}
		q.OutputTokens = len(q.ITL) + r.IntN(2)
		q.TextLatency = q.TTFT + d(time.Second)
	}
	if r.IntN(2) == 0 {
		q.TTFC = d(q.Latency/4 + 1)
	}
	if r.IntN(2) == 0 {
		q.AudioTTFP, q.AudioRTF = d(time.Second), r.Float64()
		q.AudioDuration, q.AudioFrames = d(10*time.Second), r.Int64N(240000)
	}
	if r.IntN(3) == 0 {
		q.AudioUnderrun = ptr(d(200 * time.Millisecond))
	}
	if r.IntN(4) == 0 {
		q.Images, q.ImagePixels = 1+r.IntN(2), r.Int64N(1<<20)
		q.ImageGenerationMS, q.DenoiseStepMS = randomMS(r)*float64(r.IntN(2)), randomMS(r)*float64(r.IntN(2))
	}
	for id := range r.IntN(5) {
		q.Stages = append(q.Stages, randomStage(r, id*3%5))
	}
	return q
}

// msAligned moves a request's start onto a whole millisecond, where the timeline's
// buckets are §4.2's exactly.
func msAligned(q Request) Request {
	q.Start = q.Start.Truncate(time.Millisecond)
	return q
}

// The Accumulator reproduces the list-based aggregation bit for bit, every field, while
// the lists fit the budget.
func TestAccumulatorMatchesListAggregation(t *testing.T) {
	t.Parallel()
	slos := []SLO{{"ttft", 300 * time.Millisecond}, {"tpot", 20 * time.Millisecond}, {"ttfc", time.Second}}
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 1))
		reqs := make([]Request, r.IntN(300))
		origin := time.Duration(r.Int64N(int64(time.Hour))) - 30*time.Minute // before the origin too
		origin = origin.Truncate(time.Millisecond)
		for i := range reqs {
			reqs[i] = msAligned(randomRequest(r, origin))
		}
		opts := Options{Percentiles: []float64{0, 50, 90, 99, 99.9, 100}, ContinuityThreshold: 80 * time.Millisecond}
		if seed%2 == 0 {
			opts.Goodput = slos
		}
		dur := time.Duration(r.Int64N(int64(30 * time.Second)))
		want := listAggregate(reqs, dur, opts)
		got := Aggregate(reqs, dur, opts)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: accumulator differs from lists:\n got %+v\nwant %+v", seed, got, want)
		}
	}
}

// Merging accumulators in order is adding their requests in that order: exact lists,
// first-row stage names and types of the first part.
func TestAccumulatorMergeMatchesOneAccumulator(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	var a, b []Request
	for range 200 {
		a = append(a, msAligned(randomRequest(r, 0)))
		b = append(b, msAligned(randomRequest(r, 2*time.Second)))
	}
	opts := Options{Goodput: []SLO{{"e2el", 2 * time.Second}}}
	merged, part := NewAccumulator(opts), NewAccumulator(opts)
	for _, q := range a {
		merged.Add(q)
	}
	for _, q := range b {
		part.Add(q)
	}
	merged.Merge(part)
	got := merged.Result(10 * time.Second)
	want := listAggregate(append(a, b...), 10*time.Second, opts)
	// Float totals were summed in two parts: equal within rounding, not bit for bit.
	if !near(got.AudioTotalDuration, want.AudioTotalDuration) {
		t.Errorf("audio total %v, want %v", got.AudioTotalDuration, want.AudioTotalDuration)
	}
	got.AudioTotalDuration, got.AudioThroughput = want.AudioTotalDuration, want.AudioThroughput
	for i := range got.Stages {
		if !near(got.Stages[i].AudioDuration, want.Stages[i].AudioDuration) {
			t.Errorf("stage %d audio total %v, want %v", got.Stages[i].ID, got.Stages[i].AudioDuration, want.Stages[i].AudioDuration)
		}
		got.Stages[i].AudioDuration = want.Stages[i].AudioDuration
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merged differs from lists:\n got %+v\nwant %+v", got, want)
	}
	if again := part.Result(10 * time.Second); !reflect.DeepEqual(again, listAggregate(b, 10*time.Second, opts)) {
		t.Error("Merge changed its argument")
	}
}

// Past the budget a list moves to an HDR histogram: count and mean stay exact, median
// and percentiles stay within the stated bound, and the Dist says so.
func TestAccumulatorBeyondBudgetIsWithinErrorBound(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	reqs := make([]Request, 400)
	for i := range reqs {
		itl := make([]time.Duration, 50)
		for j := range itl {
			itl[j] = time.Duration(math.Exp(r.NormFloat64()+2.5) * float64(time.Millisecond))
		}
		reqs[i] = Request{Success: true, Start: time.Duration(i) * 10 * time.Millisecond, Latency: 2 * time.Second,
			TTFT: time.Duration(r.Int64N(int64(time.Second))), ITL: itl, OutputTokens: 51}
	}
	ps := []float64{0, 1, 50, 90, 99, 99.9, 100}
	want := listAggregate(reqs, time.Minute, Options{Percentiles: ps})
	got := Aggregate(reqs, time.Minute, Options{Percentiles: ps, ExactSamples: 1000})
	if got.TTFT.ErrorBound != 0 || !reflect.DeepEqual(got.TTFT, want.TTFT) {
		t.Errorf("TTFT within budget: %+v, want %+v", got.TTFT, want.TTFT)
	}
	g, w := got.ITL, want.ITL
	if g.ErrorBound == 0 || g.N != w.N || !near(g.Mean, w.Mean) {
		t.Fatalf("ITL past budget: N %d mean %v bound %v; want N %d mean %v and a bound", g.N, g.Mean, g.ErrorBound, w.N, w.Mean)
	}
	within := func(name string, got, want float64) {
		if math.Abs(got-want) > math.Abs(want)*g.ErrorBound+0.5e-6*1000 {
			t.Errorf("ITL %s = %v, exact %v: beyond the bound %v", name, got, want, g.ErrorBound)
		}
	}
	if b := SaveResult(got, RunInfo{}, nil)["omnik"].(map[string]any)["percentile_error_bound"]; b != g.ErrorBound {
		t.Errorf("saved percentile_error_bound = %v, want %v", b, g.ErrorBound)
	}
	within("median", g.Median, w.Median)
	for i := range ps {
		within("P"+percentileLabel(ps[i]), g.Percentiles[i].Value, w.Percentiles[i].Value)
	}
}

// The peaks are §4.2's, cut to the millisecond (buckets start at t0 rounded down to a
// whole millisecond of the origin).
func TestPeaksMillisecondEdges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		reqs        []Request
		tokens      float64
		concurrency int
		offMS       bool // t0 is not on a whole millisecond: §4.2 to the ns may differ
	}{
		{"token 1 ms before a boundary stays in the bucket", []Request{
			{Success: true, Start: 0, Latency: 3 * time.Second, TTFT: ms(999), ITL: msList(1), OutputTokens: 2},
		}, 1, 1, false},
		{"two tokens in the last millisecond of a bucket", []Request{
			{Success: true, Start: 0, Latency: 3 * time.Second, TTFT: ms(999.2), ITL: msList(0.5), OutputTokens: 2},
		}, 2, 1, false},
		{"buckets start at t0, not at the origin's seconds", []Request{
			{Success: true, Start: ms(500), Latency: 3 * time.Second, TTFT: ms(600), ITL: msList(300, 99), OutputTokens: 3},
		}, 3, 1, false},
		{"sub-millisecond t0 rounds down to its millisecond", []Request{
			{Success: true, Start: ms(0.6), Latency: 3 * time.Second, TTFT: ms(999.6), OutputTokens: 1},
			{Success: true, Start: ms(100), Latency: 3 * time.Second, TTFT: ms(900.1), OutputTokens: 1},
		}, 2, 2, true},
		{"a request ending on a boundary is active in the next bucket", []Request{
			{Success: true, Start: 0, Latency: time.Second},
			{Success: true, Start: time.Second, Latency: ms(1)},
			{Success: true, Start: ms(1999), Latency: ms(1)},
		}, 0, 3, false},
		{"ending 1 ms before the boundary it is not", []Request{
			{Success: true, Start: 0, Latency: ms(999)},
			{Success: true, Start: time.Second, Latency: ms(1)},
		}, 0, 1, false},
		{"starts before the origin", []Request{
			{Success: true, Start: -ms(1500), Latency: ms(600), TTFT: ms(100), ITL: msList(100), OutputTokens: 2},
			{Success: true, Start: -ms(800), Latency: ms(400), TTFT: ms(250), ITL: msList(10), OutputTokens: 2},
		}, 4, 2, false},
		{"many requests in one millisecond", func() []Request {
			out := make([]Request, 5000)
			for i := range out {
				out[i] = Request{Success: true, Start: 7 * time.Hour, Latency: ms(10), TTFT: ms(5), OutputTokens: 1}
			}
			return out
		}(), 5000, 5000, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tok, conc := peaks(tt.reqs)
			if tok != tt.tokens || conc != tt.concurrency {
				t.Errorf("peaks = %v, %d; want %v, %d", tok, conc, tt.tokens, tt.concurrency)
			}
			if tok, conc := listPeaks(tt.reqs); !tt.offMS && (tok != tt.tokens || conc != tt.concurrency) {
				t.Errorf("§4.2 to the ns gives %v, %d: the case is not on whole milliseconds", tok, conc)
			}
		})
	}
}

// With sub-millisecond starts the buckets start at most 1 ms before §4.2's: a bucket
// holds what §4.2's holds, give or take the instants of one millisecond at each end.
func TestPeaksOffMillisecondStayClose(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(9, 9))
	reqs := make([]Request, 500)
	for i := range reqs {
		reqs[i] = randomRequest(r, 0)
	}
	wantTok, wantConc := listPeaks(reqs)
	gotTok, gotConc := peaks(reqs)
	if math.Abs(gotTok-wantTok) > 0.05*wantTok || math.Abs(float64(gotConc-wantConc)) > 0.05*float64(wantConc) {
		t.Errorf("peaks %v, %d; §4.2 to the ns gives %v, %d", gotTok, gotConc, wantTok, wantConc)
	}
}

// BenchmarkAccumulatorMemory adds synthetic requests at 100 req/s with 200-token ITLs
// and reports the live heap afterwards per request: it must not grow with their number
// once the lists are past the budget.
func BenchmarkAccumulatorMemory(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for range b.N {
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				a := NewAccumulator(Options{})
				q := syntheticRequest()
				for i := range n {
					q.Start = time.Duration(i) * 10 * time.Millisecond
					a.Add(q)
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "MB-heap")
				b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(n), "B-heap/req")
				runtime.KeepAlive(a)
			}
		})
	}
}

// syntheticRequest is a Qwen3-Omni-like request: 200 text tokens, audio, three stages
// whose lists (engine ITL, chunk latencies) are as long as the token count.
func syntheticRequest() Request {
	itl := make([]time.Duration, 200)
	gaps := make([]float64, 200)
	for i := range itl {
		itl[i] = time.Duration(10+i%7) * time.Millisecond
		gaps[i] = float64(10 + i%5)
	}
	return Request{Success: true, Latency: 3 * time.Second, TTFT: 200 * time.Millisecond, TTFC: 150 * time.Millisecond,
		ITL: itl, TextLatency: 2500 * time.Millisecond, InputTokens: 100, OutputTokens: 201,
		AudioTTFP: 600 * time.Millisecond, AudioRTF: 0.3, AudioDuration: 10 * time.Second, AudioFrames: 240000,
		Stages: []Stage{
			{ID: 0, Name: "thinker", FinalOutputType: "text", OutputUnitType: "text", OutputUnitCount: 200,
				GenTimeMS: 2500, ServingTTFOMS: ptr(190.0), VLLMTTFTMS: 180, VLLMTPOTMS: 12, VLLMITLsMS: gaps, NumTokensOut: 200},
			{ID: 1, Name: "talker", FinalOutputType: "latent", OutputUnitType: "stream", OutputUnitCount: 200,
				GenTimeMS: 2700, ServingTTFOMS: ptr(400.0), TPOPMS: ptr(12.0), ICLMS: gaps},
			{ID: 2, Name: "code2wav", FinalOutputType: "audio", OutputUnitType: "audio", OutputUnitCount: 240000,
				GenTimeMS: 2900, ServingTTFOMS: ptr(590.0), AudioFrames: 240000, AudioDurationS: 10},
		}}
}
