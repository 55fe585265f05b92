package promwrite

import (
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/metrics"
	"github.com/prometheus/prometheus/prompb"
)

// Counters are sums, gauges the last value by sample time, a Rate two counters split by
// outcome, units in base units; every series carries the tags and testid, never the
// metadata; each push sends the whole state, and the final one comes from Stop.
func TestOutputPushesCumulativeSeries(t *testing.T) {
	t.Parallel()
	recv := newReceiver(t)
	h := startOutput(t, recv, ",testid=t1,histograms=classic")
	reqs := h.reg.MustNew("requests", metrics.Counter, metrics.Default)
	sent := h.reg.MustNew("data_sent", metrics.Counter, metrics.Data)
	vus := h.reg.MustNew("vus", metrics.Gauge, metrics.Default)
	failed := h.reg.MustNew("requests_failed", metrics.Rate, metrics.Default)
	tags := []string{"scenario", "chat", "endpoint", "chat", "status", "200", "modality", ""}
	batch := []metrics.Sample{sample(reqs, 1, tags...), sample(reqs, 1, tags...), sample(sent, 512, tags...),
		sample(failed, 0, tags...), sample(failed, 1, append(tags, "error", "timeout")...)}
	batch[0].Metadata = map[string]string{"vu": "3", "request_id": "abc"}
	g1, g2 := sample(vus, 5), sample(vus, 3)
	g1.Time, g2.Time = time.Unix(20, 0), time.Unix(10, 0) // the later sample arrives first
	h.out.AddSamples(append(batch, g1, g2), true)
	if err := h.push(); err != nil {
		t.Fatal(err)
	}
	const labels = `endpoint="chat",scenario="chat",status="200",testid="t1"`
	for key, want := range map[string]float64{
		`omnik_requests_total{` + labels + `}`:        2,
		`omnik_data_sent_bytes_total{` + labels + `}`: 512,
		`omnik_vus{testid="t1"}`:                      5,
		`omnik_requests_failed_total{endpoint="chat",outcome="false",scenario="chat",status="200",testid="t1"}`:                1,
		`omnik_requests_failed_total{endpoint="chat",outcome="true",scenario="chat",status="200",testid="t1"}`:                 0,
		`omnik_requests_failed_total{endpoint="chat",error="timeout",outcome="true",scenario="chat",status="200",testid="t1"}`: 1,
		`omnik_remote_write_pushes_total{testid="t1"}`:                                                                         1,
	} {
		if got := recv.value(key); got != want {
			t.Errorf("%s = %v, want %v", key, got, want)
		}
	}
	for _, k := range recv.keys() {
		if strings.Contains(k, "request_id") || strings.Contains(k, "vu=") || strings.Contains(k, "modality") {
			t.Errorf("metadata or an empty tag became a label: %s", k)
		}
	}
	h.out.AddSamples([]metrics.Sample{sample(reqs, 1, tags...)}, false)
	if err := h.out.Stop(); err != nil {
		t.Fatal(err)
	}
	if got := recv.value(`omnik_requests_total{` + labels + `}`); got != 3 {
		t.Errorf("after Stop, requests = %v, want 3 (cumulative, the final push)", got)
	}
	if h.out.Lost() != 0 {
		t.Errorf("Lost = %d", h.out.Lost())
	}
}

// Classic histograms: cumulative _bucket{le} from the layout, +Inf, _sum and _count, in
// seconds for a Time trend.
func TestClassicHistogramBuckets(t *testing.T) {
	t.Parallel()
	recv := newReceiver(t)
	h := startOutput(t, recv, ",testid=c,histograms=classic")
	ttft := h.reg.MustNew("ttft", metrics.Trend, metrics.Time)
	var batch []metrics.Sample
	for _, ms := range []float64{0.2, 1, 1.2, 30, 30, 2_000_000} {
		batch = append(batch, sample(ttft, ms, "modality", "text"))
	}
	h.out.AddSamples(batch, true)
	if err := h.out.Stop(); err != nil {
		t.Fatal(err)
	}
	b := func(le string) float64 {
		return recv.value(`omnik_ttft_seconds_bucket{le="` + le + `",modality="text",testid="c"}`)
	}
	for le, want := range map[string]float64{"0.001": 2, "0.0015": 3, "0.02": 3, "0.03": 5, "700": 5, "+Inf": 6} {
		if got := b(le); got != want {
			t.Errorf("le=%s: %v, want %v", le, got, want)
		}
	}
	if n := len(recv.keys()); n != len(timeBounds)+1+2+5 {
		t.Errorf("%d series, want %d buckets + _sum + _count + 5 of the output's own", n, len(timeBounds)+1)
	}
	if got := recv.value(`omnik_ttft_seconds_count{modality="text",testid="c"}`); got != 6 {
		t.Errorf("_count = %v", got)
	}
	if got := recv.value(`omnik_ttft_seconds_sum{modality="text",testid="c"}`); math.Abs(got-2000.0624) > 1e-9 {
		t.Errorf("_sum = %v, want 2000.0624 s", got)
	}
}

// Native histograms: schema 3, integer counts, spans of consecutive buckets and deltas
// that decode to the bucket each value falls in; zeros in the zero bucket, negatives in
// negative buckets.
func TestNativeHistogramBuckets(t *testing.T) {
	t.Parallel()
	recv := newReceiver(t)
	h := startOutput(t, recv, ",testid=n,histograms=native")
	rtf := h.reg.MustNew("audio_rtf", metrics.Trend, metrics.Default)
	values := []float64{0, 0.25, 0.26, 1, 1, 1.05, 3, 40, -2}
	var batch []metrics.Sample
	for _, v := range values {
		batch = append(batch, sample(rtf, v))
	}
	h.out.AddSamples(batch, true)
	if err := h.out.Stop(); err != nil {
		t.Fatal(err)
	}
	ts, ok := recv.latest()[`omnik_audio_rtf{testid="n"}`]
	if !ok || len(ts.Histograms) != 2 || ts.Histograms[0].GetCountInt() != 0 {
		t.Fatalf("want the zero histogram at the start and the histogram; have %v", ts.Histograms)
	}
	hist := ts.Histograms[1]
	if hist.Schema != NativeSchema || hist.GetCountInt() != uint64(len(values)) || hist.GetZeroCountInt() != 1 {
		t.Errorf("schema %d count %d zero %d", hist.Schema, hist.GetCountInt(), hist.GetZeroCountInt())
	}
	want := map[int32]int64{}
	wantNeg := map[int32]int64{}
	var sum float64
	for _, v := range values {
		sum += v
		switch {
		case v > 0:
			want[NativeBucket(v)]++
		case v < 0:
			wantNeg[NativeBucket(-v)]++
		}
	}
	if hist.Sum != sum {
		t.Errorf("sum %v, want %v", hist.Sum, sum)
	}
	if got := decodeBuckets(hist.PositiveSpans, hist.PositiveDeltas); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("positive buckets %v, want %v", got, want)
	}
	if got := decodeBuckets(hist.NegativeSpans, hist.NegativeDeltas); fmt.Sprint(got) != fmt.Sprint(wantNeg) {
		t.Errorf("negative buckets %v, want %v", got, wantNeg)
	}
	if n := NativeBucket(1); n != 0 {
		t.Errorf("1 is in bucket %d, want 0 (the bucket (2^-1/8, 1])", n)
	}
}

// decodeBuckets turns spans and deltas back into bucket index → count.
func decodeBuckets(spans []prompb.BucketSpan, deltas []int64) map[int32]int64 {
	out := map[int32]int64{}
	var idx int32
	var count int64
	d := 0
	for i, s := range spans {
		if i == 0 {
			idx = s.Offset
		} else {
			idx += s.Offset
		}
		for range s.Length {
			count += deltas[d]
			d++
			out[idx] = count
			idx++
		}
	}
	return out
}

// In auto mode a receiver that refuses native histograms (as Prometheus 2.42 does
// without the feature: 500, nothing kept) gets the same state again at once, classic,
// said once in the log; later pushes are classic; nothing counts as lost.
func TestAutoFallsBackToClassicOnce(t *testing.T) {
	t.Parallel()
	recv := newReceiver(t)
	recv.answer = prometheus242
	h := startOutput(t, recv, ",testid=a")
	ttft := h.reg.MustNew("ttft", metrics.Trend, metrics.Time)
	reqs := h.reg.MustNew("requests", metrics.Counter, metrics.Default)
	h.out.AddSamples([]metrics.Sample{sample(ttft, 12), sample(reqs, 1)}, true)
	if err := h.push(); err != nil {
		t.Fatalf("the resend failed: %v", err)
	}
	if recv.refusals() != 1 {
		t.Errorf("%d requests refused, want 1 (the native one)", recv.refusals())
	}
	if got := recv.value(`omnik_ttft_seconds_count{testid="a"}`); got != 1 {
		t.Errorf("classic _count = %v", got)
	}
	if got := recv.value(`omnik_requests_total{testid="a"}`); got != 1 {
		t.Errorf("the counter of the refused request was not resent: %v", got)
	}
	// The refused request's zeros at the start go again: nothing of it was kept.
	for _, key := range []string{`omnik_requests_total{testid="a"}`, `omnik_ttft_seconds_count{testid="a"}`, `omnik_remote_write_pushes_total{testid="a"}`} {
		if s := recv.latest()[key].Samples; len(s) != 2 || s[0].Value != 0 {
			t.Errorf("%s: %v, want its 0 at the start and its value", key, s)
		}
	}
	h.out.AddSamples([]metrics.Sample{sample(ttft, 20)}, true)
	if err := h.push(); err != nil {
		t.Fatal(err)
	}
	if err := h.out.Stop(); err != nil {
		t.Errorf("Stop: %v", err)
	}
	if recv.refusals() != 1 {
		t.Errorf("%d requests refused, want 1: later pushes must be classic", recv.refusals())
	}
	if got := recv.value(`omnik_ttft_seconds_count{testid="a"}`); got != 2 {
		t.Errorf("classic _count = %v, want 2", got)
	}
	if n := strings.Count(h.logs.String(), "refuses native histograms"); n != 1 {
		t.Errorf("the switch was said %d times, want once:\n%s", n, h.logs)
	}
	contains(t, "the log", h.logs.String(), "native histograms are disabled")
}

// Forced native mode does not fall back: the refused pushes are failures, counted.
func TestNativeModeCountsRefusals(t *testing.T) {
	t.Parallel()
	recv := newReceiver(t)
	recv.answer = prometheus242
	h := startOutput(t, recv, ",histograms=native")
	ttft := h.reg.MustNew("ttft", metrics.Trend, metrics.Time)
	h.out.AddSamples([]metrics.Sample{sample(ttft, 12)}, true)
	if err := h.push(); err == nil {
		t.Fatal("a refused push reported no error")
	}
	err := h.out.Stop()
	if err == nil {
		t.Fatal("Stop reported no loss")
	}
	contains(t, "Stop's error", err.Error(), "2 of 2 pushes failed", "the final push failed", "native histograms are disabled")
	if h.out.Lost() == 0 {
		t.Error("Lost = 0")
	}
}

// Past max_series, samples of new series are dropped and counted; known series go on.
func TestSeriesCap(t *testing.T) {
	t.Parallel()
	recv := newReceiver(t)
	h := startOutput(t, recv, ",testid=cap,max_series=2")
	reqs := h.reg.MustNew("requests", metrics.Counter, metrics.Default)
	var batch []metrics.Sample
	for i := range 5 {
		batch = append(batch, sample(reqs, 1, "id", fmt.Sprint(i%4)))
	}
	h.out.AddSamples(batch, false)
	err := h.out.Stop()
	if err == nil {
		t.Fatal("Stop reported no drop")
	}
	contains(t, "Stop's error", err.Error(), "2 samples of 2 new series dropped past the max_series cap of 2")
	if h.out.Lost() != 2 {
		t.Errorf("Lost = %d, want 2", h.out.Lost())
	}
	if got := recv.value(`omnik_requests_total{id="0",testid="cap"}`); got != 2 {
		t.Errorf("a known series lost samples: %v", got)
	}
	if got := recv.value(`omnik_remote_write_dropped_samples_total{reason="series_cap",testid="cap"}`); got != 2 {
		t.Errorf("the output's own drop counter = %v", got)
	}
}

// A receiver that hangs holds up nothing: AddSamples returns at once, ticks while the
// push is in flight are skipped and counted, and Stop returns within twice the timeout
// (in flight, then final) with the loss named.
func TestAHangingReceiverBlocksNothing(t *testing.T) {
	t.Parallel()
	recv := newReceiver(t)
	recv.hang = make(chan struct{})
	const timeout = time.Second
	h := startOutput(t, recv, fmt.Sprintf(",timeout=%v", timeout))
	reqs := h.reg.MustNew("requests", metrics.Counter, metrics.Default)
	for range 4 { // the first starts a push that hangs; the others come while it does
		h.ticks <- time.Time{}
	}
	for range 10_000 { // more than the buffer: the fold goroutine keeps up or drops
		h.out.AddSamples([]metrics.Sample{sample(reqs, 1)}, false)
	}
	stopped := make(chan error, 1)
	go func() { stopped <- h.out.Stop() }()
	var err error
	select {
	case err = <-stopped:
	case <-time.After(2*timeout + 30*time.Second): // the bound, and slack for a loaded machine
		t.Fatal("Stop did not return")
	}
	if err == nil {
		t.Fatal("Stop reported nothing")
	}
	contains(t, "Stop's error", err.Error(), "pushes failed", "timed out", "the final push failed")
	// Each tick pushed or was skipped; Stop pushed once more.
	if h.out.pushes+h.out.skipped != 5 {
		t.Errorf("%d pushes and %d skipped, want 5 in all", h.out.pushes, h.out.skipped)
	}
	if h.out.skipped > 0 {
		contains(t, "Stop's error", err.Error(), fmt.Sprintf("%d pushes skipped", h.out.skipped))
	}
	if h.out.Lost() == 0 {
		t.Error("Lost = 0")
	}
}

// A full buffer drops the batch, counts its samples and says so at Stop.
func TestAFullBufferDropsAndCounts(t *testing.T) {
	t.Parallel()
	recv := newReceiver(t)
	out, err := New("prometheus="+recv.URL+",testid=buf", withBuffer(2), withClock(stepClock()), WithEnv(noEnv), withTicks(make(chan time.Time)))
	if err != nil {
		t.Fatal(err)
	}
	m := metrics.NewRegistry().MustNew("iterations", metrics.Counter, metrics.Default)
	// Before Start nothing folds: the third batch on finds the buffer full.
	for range 5 {
		out.AddSamples([]metrics.Sample{sample(m, 1), sample(m, 1)}, false)
	}
	if err := out.Start(); err != nil {
		t.Fatal(err)
	}
	err = out.Stop()
	if err == nil {
		t.Fatal("Stop reported no drop")
	}
	contains(t, "Stop's error", err.Error(), "6 samples dropped: its buffer was full")
	if out.Lost() != 6 {
		t.Errorf("Lost = %d, want 6", out.Lost())
	}
	if got := recv.value(`omnik_iterations_total{testid="buf"}`); got != 4 {
		t.Errorf("iterations = %v, want the 4 taken", got)
	}
	if got := recv.value(`omnik_remote_write_dropped_samples_total{reason="buffer_full",testid="buf"}`); got != 6 {
		t.Errorf("the output's own drop counter = %v", got)
	}
	out.AddSamples([]metrics.Sample{sample(m, 1)}, false)
	if out.Lost() != 7 {
		t.Errorf("a sample after Stop is not counted: Lost = %d", out.Lost())
	}
}

// Every push moves time forward, even when the clock stands still (two pushes in one
// millisecond): a series' samples must come in order.
func TestTimestampsMoveForward(t *testing.T) {
	t.Parallel()
	recv := newReceiver(t)
	still := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h := startOutput(t, recv, "", withClock(func() time.Time { return still }))
	m := h.reg.MustNew("iterations", metrics.Counter, metrics.Default)
	h.out.AddSamples([]metrics.Sample{sample(m, 1)}, false)
	for range 2 {
		if err := h.push(); err != nil {
			t.Fatal(err)
		}
	}
	_ = h.out.Stop()
	var stamps []int64
	for _, req := range recv.requests() {
		for _, ts := range req.Timeseries {
			if seriesString(ts.Labels) == `omnik_iterations_total{testid="omnik-20260101-000000"}` {
				for _, s := range ts.Samples {
					stamps = append(stamps, s.Timestamp)
				}
			}
		}
	}
	// The zero at the start, then the three pushes.
	ms := still.UnixMilli()
	want := fmt.Sprint([]int64{ms, ms + 1, ms + 2, ms + 3})
	if fmt.Sprint(stamps) != want {
		t.Errorf("timestamps %v, want %v", stamps, want)
	}
}

// The spec's testid wins over a testid tag, a tag sets it when the spec does not, and a
// generated one (said in the log) stands in for neither.
func TestTestIDPrecedence(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ spec, tag, want string }{
		{",testid=spec", "tag", "spec"},
		{"", "tag", "tag"},
		{"", "", "omnik-20260102-030406"},
	} {
		recv := newReceiver(t)
		h := startOutput(t, recv, tc.spec)
		m := h.reg.MustNew("iterations", metrics.Counter, metrics.Default)
		h.out.AddSamples([]metrics.Sample{sample(m, 1, "testid", tc.tag)}, false)
		if err := h.out.Stop(); err != nil {
			t.Fatal(err)
		}
		if got := recv.value(`omnik_iterations_total{testid="` + tc.want + `"}`); got != 1 {
			t.Errorf("%q, tag %q: %v", tc.spec, tc.tag, got)
		}
		if tc.spec == "" && tc.tag == "" {
			contains(t, "the log", h.logs.String(), "testid="+tc.want)
		}
	}
}

// A push of more series than one request carries is split across requests.
func TestLargePushesAreSplit(t *testing.T) {
	t.Parallel()
	recv := newReceiver(t)
	h := startOutput(t, recv, ",testid=big")
	m := h.reg.MustNew("vus", metrics.Gauge, metrics.Default)
	var batch []metrics.Sample
	for i := range maxPerRequest + 10 {
		batch = append(batch, sample(m, float64(i), "n", fmt.Sprint(i)))
	}
	h.out.AddSamples(batch, false)
	if err := h.out.Stop(); err != nil {
		t.Fatal(err)
	}
	if len(recv.requests()) != 2 || len(recv.requests()[0].Timeseries) != maxPerRequest {
		t.Fatalf("%d requests", len(recv.requests()))
	}
	if got := recv.value(`omnik_vus{n="2009",testid="big"}`); got != 2009 {
		t.Errorf("the last gauge = %v", got)
	}
}

// Credentials reach the receiver (user info as basic auth, the bearer token, extra
// headers) and appear in no description, log line or error, even when the receiver
// echoes them back.
func TestCredentialsAreSentNeverPrinted(t *testing.T) {
	t.Parallel()
	recv := newReceiver(t)
	recv.answer = func(_ *prompb.WriteRequest, h http.Header) (int, string) {
		return http.StatusUnauthorized, "bad credentials: " + h.Get("Authorization") + " " + h.Get("X-Api-Key")
	}
	env := map[string]string{EnvHeaders: "X-Scope-OrgID=team%2Ca,X-Api-Key=key-secret-123"}
	logs := &logBuffer{}
	spec := "prometheus=" + strings.Replace(recv.URL, "http://", "http://alice:pw-secret-456@", 1) + "/api/v1/write?token=tok-secret-789"
	out, err := New(spec, WithEnv(func(k string) string { return env[k] }), withTicks(make(chan time.Time)),
		WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	if err != nil {
		t.Fatal(err)
	}
	if err := out.Start(); err != nil {
		t.Fatal(err)
	}
	stopErr := out.Stop()
	if stopErr == nil {
		t.Fatal("a refused push reported nothing")
	}
	hd := recv.header()
	if got := hd.Get("Authorization"); got != "Basic YWxpY2U6cHctc2VjcmV0LTQ1Ng==" {
		t.Errorf("Authorization %q", got)
	}
	if hd.Get("X-Scope-OrgID") != "team,a" || hd.Get("X-Api-Key") != "key-secret-123" {
		t.Errorf("headers %v", hd)
	}
	for what, s := range map[string]string{"Description": out.Description(), "Stop's error": stopErr.Error(), "the log": logs.String()} {
		for _, secret := range []string{"pw-secret-456", "key-secret-123", "tok-secret-789", "YWxpY2U6cHctc2VjcmV0LTQ1Ng"} {
			if strings.Contains(s, secret) {
				t.Errorf("%s shows %s: %s", what, secret, s)
			}
		}
	}
	contains(t, "Stop's error", stopErr.Error(), "401", "REDACTED")
}

// Pushes skipped while one was in flight lose nothing: Stop reports no error, and the
// log says the series have gaps.
func TestSkippedPushesAloneAreAWarning(t *testing.T) {
	t.Parallel()
	recv := newReceiver(t)
	release := make(chan struct{})
	recv.answer = func(*prompb.WriteRequest, http.Header) (int, string) { <-release; return 0, "" }
	h := startOutput(t, recv, ",testid=skip")
	m := h.reg.MustNew("iterations", metrics.Counter, metrics.Default)
	h.out.AddSamples([]metrics.Sample{sample(m, 1)}, false)
	h.ticks <- time.Time{} // in flight until released
	h.ticks <- time.Time{} // skipped
	close(release)
	if err := <-h.idle; err != nil {
		t.Fatal(err)
	}
	if err := h.out.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	contains(t, "the log", h.logs.String(), "1 pushes skipped", "no loss")
	if got := recv.value(`omnik_remote_write_pushes_skipped_total{testid="skip"}`); got != 1 {
		t.Errorf("the output's own skip counter = %v", got)
	}
}

// A counter, rate or histogram series is sent once with a 0 from when it was last known
// to be 0 (the run's start, or just after the push before it appeared), so rate() sees
// its first increase; never again, since the receiver would refuse it as out of order.
// Gauges have no such zero.
func TestNewSeriesStartAtZeroOnce(t *testing.T) {
	t.Parallel()
	recv := newReceiver(t)
	h := startOutput(t, recv, ",testid=z,histograms=classic")
	reqs := h.reg.MustNew("requests", metrics.Counter, metrics.Default)
	vus := h.reg.MustNew("vus", metrics.Gauge, metrics.Default)
	h.out.AddSamples([]metrics.Sample{sample(reqs, 1, "n", "a"), sample(vus, 2)}, false)
	if err := h.push(); err != nil {
		t.Fatal(err)
	}
	h.out.AddSamples([]metrics.Sample{sample(reqs, 1, "n", "a"), sample(reqs, 1, "n", "b")}, false)
	if err := h.push(); err != nil {
		t.Fatal(err)
	}
	_ = h.out.Stop()
	pushes := recv.requests()
	samples := func(push int, key string) string {
		for _, ts := range pushes[push].Timeseries {
			if seriesString(ts.Labels) == key {
				return fmt.Sprint(ts.Samples)
			}
		}
		return "none"
	}
	start := h.out.st.start
	first := pushes[0].Timeseries[0].Samples[1].Timestamp
	second := pushes[1].Timeseries[0].Samples[0].Timestamp
	for _, tc := range []struct {
		push      int
		key, want string
	}{
		{0, `omnik_requests_total{n="a",testid="z"}`, fmt.Sprint([]prompb.Sample{{Value: 0, Timestamp: start}, {Value: 1, Timestamp: first}})},
		{0, `omnik_vus{testid="z"}`, fmt.Sprint([]prompb.Sample{{Value: 2, Timestamp: first}})},
		{1, `omnik_requests_total{n="a",testid="z"}`, fmt.Sprint([]prompb.Sample{{Value: 2, Timestamp: second}})},
		{1, `omnik_requests_total{n="b",testid="z"}`, fmt.Sprint([]prompb.Sample{{Value: 0, Timestamp: first + 1}, {Value: 1, Timestamp: second}})},
		{0, `omnik_remote_write_pushes_total{testid="z"}`, fmt.Sprint([]prompb.Sample{{Value: 0, Timestamp: start}, {Value: 1, Timestamp: first}})},
	} {
		if got := samples(tc.push, tc.key); got != tc.want {
			t.Errorf("push %d, %s: %s, want %s", tc.push+1, tc.key, got, tc.want)
		}
	}
}
