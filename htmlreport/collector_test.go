package htmlreport

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

func ms(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

// chat is a successful chat record started at offset with text chunks every 10 ms from
// ttft until e2el.
func chat(scenario string, offset, ttft, e2el time.Duration) *record.Record {
	r := &record.Record{Endpoint: record.EndpointChat, Status: 200, Scenario: scenario, Offset: offset, End: e2el}
	for at := ttft; at <= e2el; at += 10 * time.Millisecond {
		r.TextChunks = append(r.TextChunks, record.TextChunk{At: at, Bytes: 1, Tokens: -1})
	}
	r.Usage.Completion = len(r.TextChunks)
	return r
}

// failed is a failure of kind: an HTTP 500 for http_status, inside a 200 otherwise.
func failed(offset time.Duration, kind, msg string) *record.Record {
	status := 200
	if kind == record.KindHTTPStatus {
		status = 500
	}
	return &record.Record{Endpoint: record.EndpointChat, Status: status, Offset: offset, End: 5 * time.Millisecond, Err: &record.Error{Kind: kind, Message: msg}}
}

func TestTimelineCountsEveryRequestInItsBuckets(t *testing.T) {
	t.Parallel()
	tl := newTimeline()
	tl.add(chat("a", ms(500), ms(100), ms(1000))) // 0.5 s → 1.5 s
	tl.add(chat("a", ms(1200), ms(100), ms(300))) // 1.2 s → 1.5 s
	tl.add(failed(ms(2500), record.KindHTTPStatus, "boom"))
	tl.add(&record.Record{Offset: ms(2600), End: ms(100), Err: &record.Error{Kind: record.KindInterrupted}})
	s := tl.series(3 * time.Second)
	if got := fmt.Sprint(s.Started, s.Finished, s.Failed, s.Interrupted); got != "[1 1 2] [0 2 0] [0 0 1] [0 0 1]" {
		t.Errorf("started finished failed interrupted per second = %s", got)
	}
	// In flight: 0.5 s in bucket 0; 0.5 + 0.3 s in bucket 1; 5 ms + 100 ms in bucket 2.
	want := []float64{0.5, 0.8, 0.105}
	for i, w := range want {
		if math.Abs(float64(s.Concurrency[i])-w) > 1e-9 {
			t.Errorf("concurrency[%d] = %v, want %v", i, s.Concurrency[i], w)
		}
	}
	// Tokens: one at the TTFT and one per later chunk, where they arrived.
	if s.Tokens[0] != 40 || s.Tokens[1] != 51+21 {
		t.Errorf("tokens per second = %v", s.Tokens)
	}
	ttft := s.Bands["ttft"]
	if ttft.P50[0] != 100 || ttft.P50[1] != 100 || !math.IsNaN(float64(ttft.P50[2])) {
		t.Errorf("TTFT p50 per bucket = %v", ttft.P50)
	}
}

// A run of any length keeps at most maxBuckets buckets, and coarsening keeps every count.
func TestTimelineStaysBoundedOverLongRuns(t *testing.T) {
	t.Parallel()
	tl := newTimeline()
	const hours, perSecond = 3, 2
	var inFlight time.Duration
	n := 0
	for sec := range hours * 3600 {
		for k := range perSecond {
			r := chat("a", time.Duration(sec)*time.Second+time.Duration(k)*300*time.Millisecond, ms(50), ms(250))
			tl.add(r)
			inFlight += r.End
			n++
		}
	}
	if len(tl.buckets) > maxBuckets {
		t.Fatalf("%d buckets, more than %d", len(tl.buckets), maxBuckets)
	}
	if tl.width != 16*time.Second {
		t.Errorf("bucket width %v after %d h, want 16s", tl.width, hours)
	}
	var started, finished int64
	for _, b := range tl.buckets {
		started += b.started
		finished += b.finished
		for _, r := range b.bands {
			if len(r.values) > reservoirSize {
				t.Fatalf("a reservoir holds %d values", len(r.values))
			}
		}
	}
	if started != int64(n) || finished != int64(n) {
		t.Errorf("after coarsening: started %d, finished %d; want %d", started, finished, n)
	}
	// The mean concurrency times each bucket's span is the time in flight, to the ns.
	s := tl.series(hours * time.Hour)
	var flight float64
	for i, c := range s.Concurrency {
		span := float64(s.BucketS)
		if i == len(s.Concurrency)-1 {
			span = float64(hours*time.Hour)/1e9 - float64(s.T[i])
		}
		flight += float64(c) * span
	}
	if math.Abs(flight-inFlight.Seconds()) > 1e-3 || len(s.T) > maxBuckets {
		t.Errorf("%d buckets holding %.3f s in flight, want %.3f s", len(s.T), flight, inFlight.Seconds())
	}
	// Every bucket's E2EL sample still says 250 ms, and stands for all its requests.
	e2el := tl.buckets[10].bands[2]
	if e2el.seen != 16*perSecond || e2el.values[0] != 250 {
		t.Errorf("bucket 10's E2EL reservoir: seen %d, first %v", e2el.seen, e2el.values[0])
	}
}

func TestReservoirIsExactUpToItsSizeAndBoundedBeyond(t *testing.T) {
	t.Parallel()
	tl := newTimeline()
	var r reservoir
	for i := range reservoirSize {
		tl.sample(&r, float32(i))
	}
	// numpy's linear interpolation, as the summary's percentiles: 0..255 has p50 127.5.
	if p50, _, p99 := quantiles(r.values); p50 != 127.5 || p99 != 252.45 {
		t.Errorf("exact p50 %v, p99 %v", p50, p99)
	}
	for i := range 100_000 {
		tl.sample(&r, float32(i%1000))
	}
	if len(r.values) != reservoirSize || r.seen != reservoirSize+100_000 {
		t.Errorf("reservoir of %d values, seen %d", len(r.values), r.seen)
	}
	if p50, _, _ := quantiles(r.values); p50 < 350 || p50 > 650 {
		t.Errorf("sampled p50 %v of values uniform over 0..999", p50) // 256 draws: far outside ±150 is a broken sample
	}
}

func TestWaterfallsAreTheSlowestOfEachScenarioAndASample(t *testing.T) {
	t.Parallel()
	w := newWaterfalls()
	for i := range 100 {
		w.add(chat("fast", time.Duration(i)*time.Second, ms(10), ms(float64(100+i))))
		if i < 3 {
			w.add(chat("slow", time.Duration(i)*time.Second, ms(10), ms(float64(5000+i))))
		}
	}
	w.add(failed(0, record.KindHTTPStatus, "never drawn"))
	list := w.list()
	var got []string
	for _, wf := range list {
		got = append(got, fmt.Sprintf("%s:%s:%v", wf.Why, wf.Scenario, wf.E2ELMS))
	}
	if len(list) > 2*waterfallCount || len(list) <= waterfallCount {
		t.Fatalf("%d waterfalls: %v", len(list), got)
	}
	for i := range list {
		for j := range i {
			if list[i].same(list[j]) {
				t.Errorf("waterfalls %d and %d are one request: %v", j, i, got)
			}
		}
	}
	// Round by round, each scenario's slowest: slow has three, fast fills the rest.
	want := "slowest:slow:5002 slowest:fast:199 slowest:slow:5001 slowest:fast:198 slowest:slow:5000 slowest:fast:197 slowest:fast:196 slowest:fast:195"
	if s := strings.Join(got[:waterfallCount], " "); s != want {
		t.Errorf("slowest:\n got %s\nwant %s", s, want)
	}
	for i, wf := range list[waterfallCount:] {
		if wf.Why != "sample" || (i > 0 && wf.StartS < list[waterfallCount+i-1].StartS) {
			t.Errorf("sample %d: %+v", i, wf)
		}
	}
}

func TestWaterfallPlacesStagesAndThinsLongStreams(t *testing.T) {
	t.Parallel()
	r := chat("a", 0, ms(80), ms(20_000)) // 1993 text chunks
	r.Stages = map[string]chunk.Stage{
		"0": {ID: 0, Name: "thinker", FinalOutputType: "text", Values: map[string]float64{"stage_gen_time_ms": 300, "serving_time_to_first_output_ms": 80}},
		"1": {ID: 1, Name: "talker", Values: map[string]float64{"stage_gen_time_ms": 280, "serving_time_to_first_output_ms": 130}},
		"2": {ID: 2, Name: "dit", FinalOutputType: "image", Values: map[string]float64{"stage_gen_time_ms": 100, "serving_time_to_first_output_ms": 900}},
	}
	wf := waterfallOf(r, "sample")
	var starts []string
	for _, s := range wf.Stages {
		starts = append(starts, fmt.Sprintf("%s@%v", s.Name, s.StartMS))
	}
	// thinker from the start; talker at the thinker's first output; the DiT outputs once,
	// at its end: 900 − 100.
	if got := strings.Join(starts, " "); got != "thinker@0 talker@80 dit@800" {
		t.Errorf("stage starts %s", got)
	}
	if n := len(wf.Chunks["text"]); n != maxChunkMarks || wf.Counts["text"] != len(r.TextChunks) {
		t.Errorf("%d text marks of %d chunks (counted %d)", n, len(r.TextChunks), wf.Counts["text"])
	}
	if first, last := wf.Chunks["text"][0], wf.Chunks["text"][maxChunkMarks-1]; first != 80 || float64(last) != record.Millis(r.TextChunks[len(r.TextChunks)-1].At) {
		t.Errorf("thinned marks run from %v to %v", first, last)
	}
}

func TestFailuresKeepBoundedMessages(t *testing.T) {
	t.Parallel()
	f, anomalies := failures{}, failures{}
	for i := range 1000 {
		f.add(anomalies, failed(time.Duration(i)*time.Millisecond, record.KindHTTPStatus, fmt.Sprintf("HTTP 500: request %d", i)))
	}
	for range 3 {
		f.add(anomalies, failed(2*time.Second, record.KindStall, strings.Repeat("é", 400)))
	}
	f.add(anomalies, &record.Record{Err: &record.Error{Kind: record.KindInterrupted}, Anomalies: []record.Anomaly{{Kind: record.AnomalyTextCut}}})
	tooMany := failed(0, record.KindHTTPStatus, "HTTP 429: slow down")
	tooMany.Status = 429
	f.add(anomalies, tooMany)
	f.add(anomalies, &record.Record{Anomalies: []record.Anomaly{{Kind: record.AnomalyTextCut, Message: "cut"}, {Kind: record.AnomalyModality, Message: "video"}}})
	if a := anomalies.list(); len(a) != 2 || a[0].Count != 1 || a[0].Samples[0].Text == "" {
		t.Errorf("anomalies %+v, want the ok request's two and not the interrupted one's", a)
	}
	list := f.list()
	if len(list) != 3 || list[0].Kind != "http_status 500" || list[2].Kind != "http_status 429" || list[0].Count != 1000 || len(list[0].Samples) != maxMessages || list[0].Other != 1000-maxMessages {
		t.Fatalf("failures %+v", list)
	}
	if list[0].FirstS != 0.005 || list[0].LastS != 1.004 {
		t.Errorf("first %v, last %v", list[0].FirstS, list[0].LastS)
	}
	stall := list[1].Samples[0]
	if stall.Count != 3 || len(stall.Text) > maxMessageLength+len("…") || !strings.HasSuffix(stall.Text, "é…") {
		t.Errorf("long message kept as %d bytes ×%d: %q…", len(stall.Text), stall.Count, stall.Text[:20])
	}
}

func TestParseBlocksKeepsThePrintedRows(t *testing.T) {
	t.Parallel()
	text := "  FAILED REQUESTS BY ERROR\n\n    http_status 429                2  HTTP 429: slow down\n\n" +
		"  ANOMALIES (counted; these requests did not fail for them)\n\n    text_truncated                 2  cut: 9 bytes\n\n" +
		"============ Serving Benchmark Result ============\n" +
		"Successful requests:                     259       \n" +
		"----------------End-to-end Latency----------------\n" +
		"Mean E2EL (ms):                          299.69    \n" +
		"================== Text Result ===================\n" +
		"Streaming continuity OK rate:            100.00%   \n" +
		"==================================================\n" +
		"(medians and percentiles above are approximate, from HDR histograms: relative error ≤ 0.1%)\n\n" +
		"============= Stage Benchmark Result =============\n" +
		"=============== Stage 0 (thinker) ================\n"
	b, _ := json.Marshal(parseBlocks(text))
	want := `[{"kind":"title","label":"Serving Benchmark Result"},{"kind":"row","label":"Successful requests","value":"259"},` +
		`{"kind":"heading","label":"End-to-end Latency"},{"kind":"row","label":"Mean E2EL (ms)","value":"299.69"},` +
		`{"kind":"section","label":"Text Result"},{"kind":"row","label":"Streaming continuity OK rate","value":"100.00%"},` +
		`{"kind":"note","label":"(medians and percentiles above are approximate, from HDR histograms: relative error ≤ 0.1%)"},` +
		`{"kind":"title","label":"Stage Benchmark Result"},{"kind":"section","label":"Stage 0 (thinker)"}]`
	if string(b) != want {
		t.Errorf("blocks\n got %s\nwant %s", b, want)
	}
}

func TestFloatIsShortAndNullWhereUndefined(t *testing.T) {
	t.Parallel()
	b, _ := json.Marshal([]Float{1.23456789, 1e9, Float(math.NaN()), Float(math.Inf(1)), 0})
	if string(b) != "[1.23457,1e+09,null,null,0]" {
		t.Errorf("%s", b)
	}
}

// Requests in flight through whole buckets keep their time when buckets merge.
func TestConcurrencySurvivesCoarsening(t *testing.T) {
	t.Parallel()
	tl := newTimeline()
	long := chat("a", ms(500), ms(50), 7*time.Second) // 0.5 s → 7.5 s
	tl.add(long)
	want := []float64{0.5, 1, 1, 1, 1, 1, 1, 0.5}
	check := func(s Timeline, want []float64) {
		t.Helper()
		for i, w := range want {
			if math.Abs(float64(s.Concurrency[i])-w) > 1e-9 {
				t.Errorf("width %v s: concurrency %v, want %v", s.BucketS, s.Concurrency, want)
				return
			}
		}
	}
	check(tl.series(8*time.Second), want)
	tl.coarsen()
	check(tl.series(8*time.Second), []float64{0.75, 1, 1, 0.75})
	tl.coarsen()
	check(tl.series(8*time.Second), []float64{0.875, 0.875})
}

// One record claiming to end 100 days later does not stretch the axis: the series end
// 5 s after the run at most, and say how many events they left out.
func TestSeriesKeepToTheRun(t *testing.T) {
	t.Parallel()
	tl := newTimeline()
	for i := range 30 {
		tl.add(chat("a", time.Duration(i)*100*time.Millisecond, ms(20), ms(200)))
	}
	tl.add(&record.Record{Status: 200, Offset: ms(100), End: 100 * 24 * time.Hour}) // no chunks: ends 100 days later
	tl.add(chat("a", 1000*time.Hour, ms(20), ms(200)))
	s := tl.series(3 * time.Second)
	if tl.width != time.Second || len(s.T) != 4 || s.Outside != 3 {
		t.Errorf("width %v, %d buckets, %d outside; want 1s, 4, 3", tl.width, len(s.T), s.Outside)
	}
	// A run whose duration dwarfs its records still draws at most maxBuckets buckets.
	if s := tl.series(1000 * time.Hour); len(s.T) > maxBuckets || s.Outside != 1 {
		t.Errorf("%d buckets of %v s, %d outside", len(s.T), s.BucketS, s.Outside)
	}
}

// Requests the end of the run cut off end after its duration: the last bucket's rates
// divide by the time up to the last of them, not by the run's remainder.
func TestLastBucketRatesCoverDrainedRequests(t *testing.T) {
	t.Parallel()
	tl := newTimeline()
	for i := range 10 {
		tl.add(chat("a", 2*time.Second+time.Duration(i)*80*time.Millisecond, ms(20), ms(300))) // the last ends at 3.02 s
	}
	s := tl.series(2005 * time.Millisecond)
	last := len(s.T) - 1
	if len(s.T) != 4 || s.Concurrency[last] > 1 || s.Concurrency[2] > 4 {
		t.Errorf("%d buckets, concurrency %v", len(s.T), s.Concurrency)
	}
}

// Merged reservoirs stand for their buckets' counts: a bucket of 10,000 ones and one of
// 100 twos make a sample of about 1 % twos, not a half.
func TestMergedSamplesKeepTheirShares(t *testing.T) {
	t.Parallel()
	tl := newTimeline()
	var a, b reservoir
	for range 10_000 {
		tl.sample(&a, 1)
	}
	for range 100 {
		tl.sample(&b, 2)
	}
	m := tl.mergeSamples(a, b)
	twos := 0
	for _, v := range m.values {
		if v == 2 {
			twos++
		}
	}
	if m.seen != 10_100 || len(m.values) != reservoirSize || twos != 3 {
		t.Errorf("merged: seen %d, %d values, %d twos (want 3: 1%% of 256, rounded)", m.seen, len(m.values), twos)
	}
}

// A file may name any number of error kinds, scenarios and stages: the report keeps a
// bounded number of each and counts the rest.
func TestMadeUpNamesAreBounded(t *testing.T) {
	t.Parallel()
	c := NewCollector()
	for i := range 1000 {
		c.Add(failed(0, fmt.Sprintf("kind-%d", i), "x"))
		r := chat(fmt.Sprintf("scenario-%d", i), 0, ms(10), ms(30))
		r.Stages = map[string]chunk.Stage{"0": {ID: i, Name: fmt.Sprintf("stage-%d", i), Values: map[string]float64{"stage_gen_time_ms": 5}}}
		c.Add(r)
	}
	kinds := c.failures.list()
	if len(kinds) != maxKinds+1 || kinds[0].Kind != otherKind || kinds[0].Count != 1000-maxKinds {
		t.Errorf("%d kinds, the most frequent %+v", len(kinds), kinds[0])
	}
	if n := len(c.dists.stages()); n != maxStages {
		t.Errorf("%d stages kept", n)
	}
	groups := map[string]bool{}
	for k := range c.dists.sinks {
		groups[k.group] = true
	}
	if len(groups) != 1+maxScenarios+1+maxStages || len(c.waterfalls.slowest) != maxScenarios {
		t.Errorf("%d groups, slowest of %d scenarios", len(groups), len(c.waterfalls.slowest))
	}
}
