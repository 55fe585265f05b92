package report

import (
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/record"
)

// Past the budget a list moves to an HDR histogram: count and mean stay exact, median
// and percentiles stay within the stated bound, and the Dist says so.
func TestAccumulatorBeyondBudgetIsWithinErrorBound(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	recs := make([]*record.Record, 400)
	for i := range recs {
		gaps := make([]float64, 50)
		for j := range gaps {
			gaps[j] = math.Exp(r.NormFloat64() + 2.5)
		}
		recs[i] = req(at(float64(i)*10, 2000), text(float64(r.Int64N(1000)), gaps...))
	}
	ps := []float64{0, 1, 50, 90, 99, 99.9, 100}
	want := aggregate(recs, time.Minute, Options{Percentiles: ps})
	got := aggregate(recs, time.Minute, Options{Percentiles: ps, TrendBudget: 1000})
	if got.TTFT.ErrorBound != 0 || !reflect.DeepEqual(got.TTFT, want.TTFT) {
		t.Errorf("TTFT within budget: %+v, want %+v", got.TTFT, want.TTFT)
	}
	g, w := got.ITL, want.ITL
	if g.ErrorBound == 0 || w.ErrorBound != 0 || g.N != w.N || !near(g.Mean, w.Mean) {
		t.Fatalf("ITL past budget: N %d mean %v bound %v; want N %d mean %v and a bound", g.N, g.Mean, g.ErrorBound, w.N, w.Mean)
	}
	within := func(name string, got, want float64) {
		if math.Abs(got-want) > math.Abs(want)*g.ErrorBound+1e-6 {
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

// listPeaks is §4.2 to the nanosecond: the largest number of output tokens and of active
// requests in one of the 1-second buckets that start at the earliest successful start.
func listPeaks(recs []*record.Record) (tokens float64, concurrency int) {
	first, last := time.Duration(math.MaxInt64), time.Duration(math.MinInt64)
	for _, r := range recs {
		if r.OK() {
			first, last = min(first, r.Offset), max(last, r.Offset+r.End)
		}
	}
	if first > last {
		return 0, 0
	}
	buckets := int((last-first+time.Second-1)/time.Second) + 1
	tok, conc := make([]int, buckets), make([]int, buckets)
	bucket := func(t time.Duration) int { return int((t - first) / time.Second) }
	for _, r := range recs {
		if !r.OK() {
			continue
		}
		if ttft, ok := record.TTFT(r); ok {
			t := r.Offset + ttft
			for i := -1; i < len(record.ITL(r)); i++ {
				if i >= 0 {
					t += record.ITL(r)[i]
				}
				if b := bucket(t); b >= 0 && b < buckets {
					tok[b]++
				}
			}
		}
		for b := bucket(r.Offset); b <= bucket(r.Offset+r.End); b++ {
			conc[b]++
		}
	}
	return float64(slices.Max(tok)), slices.Max(conc)
}

// The peaks are §4.2's, cut to the millisecond (buckets start at t0 rounded down to a
// whole millisecond of the run's timeline).
func TestPeaksMillisecondEdges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		recs        []*record.Record
		tokens      float64
		concurrency int
		offMS       bool // t0 is not on a whole millisecond: §4.2 to the ns may differ
	}{
		{"token 1 ms before a boundary stays in the bucket", []*record.Record{req(at(0, 3000), text(999, 1))}, 1, 1, false},
		{"two tokens in the last millisecond of a bucket", []*record.Record{req(at(0, 3000), text(999.2, 0.5))}, 2, 1, false},
		{"buckets start at t0, not at the timeline's seconds", []*record.Record{req(at(500, 3000), text(600, 300, 99))}, 3, 1, false},
		{"sub-millisecond t0 rounds down to its millisecond", []*record.Record{
			req(at(0.6, 3000), text(999.6)), req(at(100, 3000), text(900.1)),
		}, 2, 2, true},
		{"a request ending on a boundary is active in the next bucket", []*record.Record{
			req(at(0, 1000)), req(at(1000, 1)), req(at(1999, 1)),
		}, 0, 3, false},
		{"ending 1 ms before the boundary it is not", []*record.Record{req(at(0, 999)), req(at(1000, 1))}, 0, 1, false},
		{"starts before the origin", []*record.Record{
			req(at(-1500, 600), text(100, 100)), req(at(-800, 400), text(250, 10)),
		}, 4, 2, false},
		{"many requests in one millisecond", func() []*record.Record {
			out := make([]*record.Record, 5000)
			for i := range out {
				out[i] = req(at(7*3600_000, 10), text(5))
			}
			return out
		}(), 5000, 5000, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := aggregate(tt.recs, 0, Options{})
			if r.PeakOutputTokens != tt.tokens || r.PeakConcurrency != tt.concurrency {
				t.Errorf("peaks = %v, %d; want %v, %d", r.PeakOutputTokens, r.PeakConcurrency, tt.tokens, tt.concurrency)
			}
			if tok, conc := listPeaks(tt.recs); !tt.offMS && (tok != tt.tokens || conc != tt.concurrency) {
				t.Errorf("§4.2 to the ns gives %v, %d: the case is not on whole milliseconds", tok, conc)
			}
		})
	}
}

// randomText is a request with sub-millisecond timings over 20 s, text or not.
func randomText(r *rand.Rand) *record.Record {
	opts := []func(*record.Record){at(r.Float64()*20000, r.Float64()*5000)}
	if r.IntN(4) > 0 {
		gaps := make([]float64, r.IntN(30))
		for i := range gaps {
			gaps[i] = r.Float64() * 40
		}
		opts = append(opts, text(r.Float64()*1000, gaps...))
	}
	if r.IntN(10) == 0 {
		opts = append(opts, failed(record.KindReset))
	}
	return req(opts...)
}

// With sub-millisecond starts the buckets start at most 1 ms before §4.2's: a bucket
// holds what §4.2's holds, give or take the instants of one millisecond at each end; on
// whole milliseconds they agree exactly.
func TestPeaksAgreeWithSection42(t *testing.T) {
	t.Parallel()
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 9))
		recs := make([]*record.Record, 300)
		for i := range recs {
			recs[i] = randomText(r)
		}
		wantTok, wantConc := listPeaks(recs)
		got := aggregate(recs, 0, Options{})
		if math.Abs(got.PeakOutputTokens-wantTok) > 0.05*wantTok || math.Abs(float64(got.PeakConcurrency-wantConc)) > 0.05*float64(wantConc) {
			t.Errorf("seed %d: peaks %v, %d; §4.2 to the ns gives %v, %d", seed, got.PeakOutputTokens, got.PeakConcurrency, wantTok, wantConc)
		}
		for _, q := range recs {
			q.Offset = q.Offset.Truncate(time.Millisecond)
		}
		wantTok, wantConc = listPeaks(recs)
		if got := aggregate(recs, 0, Options{}); got.PeakOutputTokens != wantTok || got.PeakConcurrency != wantConc {
			t.Errorf("seed %d on whole ms: peaks %v, %d; §4.2 gives %v, %d", seed, got.PeakOutputTokens, got.PeakConcurrency, wantTok, wantConc)
		}
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
				q := syntheticRecord()
				for i := range n {
					q.Offset = time.Duration(i) * 10 * time.Millisecond
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

// syntheticRecord is a Qwen3-Omni-like request: 200 text tokens, audio, three stages
// whose lists (engine ITL, chunk latencies) are as long as the token count.
func syntheticRecord() *record.Record {
	itl := make([]float64, 199)
	gaps := make([]float64, 200)
	for i := range gaps {
		if i < len(itl) {
			itl[i] = float64(10 + i%7)
		}
		gaps[i] = float64(10 + i%5)
	}
	return req(at(0, 3000), text(200, itl...), tokens(100, 200), chatAudio(600, 2900, 10, 240000), withStages(
		stage(0, "thinker", "text", "text", map[string]float64{"output_unit_count": 200, "stage_gen_time_ms": 2500,
			"serving_time_to_first_output_ms": 190, "vllm_ttft_ms": 180, "vllm_tpot_ms": 12, "num_tokens_out": 200},
			map[string][]float64{"vllm_itls_ms": gaps}),
		stage(1, "talker", "latent", "stream", map[string]float64{"output_unit_count": 200, "stage_gen_time_ms": 2700,
			"serving_time_to_first_output_ms": 400, "time_per_output_unit_ms": 12}, map[string][]float64{"inter_output_latencies_ms": gaps}),
		stage(2, "code2wav", "audio", "audio", map[string]float64{"output_unit_count": 240000, "stage_gen_time_ms": 2900,
			"serving_time_to_first_output_ms": 590, "audio_frames": 240000, "audio_duration_s": 10}, nil),
	))
}
