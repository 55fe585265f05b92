package report

import (
	"math"
	"testing"
	"time"
)

func ms(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

func msList(vs ...float64) []time.Duration {
	out := make([]time.Duration, len(vs))
	for i, v := range vs {
		out[i] = ms(v)
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// mixedRun is a hand-checked run over 4 s:
//
//	A text+audio: start 0, E2EL 2.5 s, tokens at 0.5 0.8 1.1 1.5 2.1 s (buckets 0 0 1 1 2)
//	B text:       start 1.2 s, E2EL 1.0 s, tokens at 1.4 1.5 1.6 1.7 s (bucket 1 ×4), underrun 150 ms
//	C failed
//	D image:      start 3 s, E2EL 1.0 s, no text, underrun 50 ms
//
// Token buckets 2 6 1 0 0 → peak 6; concurrency buckets 1 2 2 1 1 → peak 2.
func mixedRun() []Request {
	return []Request{
		{Success: true, Start: 0, Latency: ms(2500), TTFT: ms(500), TTFC: ms(400), ITL: msList(300, 300, 400, 600),
			TextLatency: ms(2100), InputTokens: 100, OutputTokens: 5,
			AudioTTFP: ms(700), AudioRTF: 0.5, AudioDuration: 5 * time.Second, AudioFrames: 120000},
		{Success: true, Start: ms(1200), Latency: ms(1000), TTFT: ms(200), TTFC: ms(200), ITL: msList(100, 100, 100),
			InputTokens: 50, OutputTokens: 4, AudioUnderrun: ptr(ms(150))},
		{Success: false, Error: "HTTP 500", Start: 0, Latency: ms(100), InputTokens: 70},
		{Success: true, Start: 3 * time.Second, Latency: time.Second, InputTokens: 30,
			AudioUnderrun: ptr(ms(50)), Images: 1, ImagePixels: 1024 * 1024, ImageGenerationMS: 800, DenoiseStepMS: 16},
	}
}

func TestAggregateCountsAndThroughputs(t *testing.T) {
	t.Parallel()
	r := Aggregate(mixedRun(), 4*time.Second, Options{})
	checks := []struct {
		name      string
		got, want float64
	}{
		{"completed", float64(r.Completed), 3},
		{"failed", float64(r.Failed), 1},
		{"total input (successful only)", float64(r.TotalInput), 180},
		{"total output", float64(r.TotalOutput), 9},
		{"request throughput", r.RequestThroughput, 0.75},
		{"output throughput", r.OutputThroughput, 2.25},
		{"total token throughput", r.TotalTokenThroughput, 47.25},
		{"peak output tokens", r.PeakOutputTokens, 6},
		{"peak concurrency", float64(r.PeakConcurrency), 2},
		{"ttft mean (zero for the image request)", r.TTFT.Mean, 700.0 / 3},
		{"ttft median", r.TTFT.Median, 200},
		{"ttft p99", r.TTFT.Percentiles[0].Value, 494},
		{"tpot samples", float64(r.TPOT.N), 2},
		{"tpot mean of per-request mean ITL", r.TPOT.Mean, 250},
		{"tpot p99", r.TPOT.Percentiles[0].Value, 397},
		{"itl samples", float64(r.ITL.N), 7},
		{"itl mean", r.ITL.Mean, 1900.0 / 7},
		{"e2el mean", r.E2EL.Mean, 1500},
		{"e2el median", r.E2EL.Median, 1000},
		{"audio ttfp mean keeps zeros", r.AudioTTFP.Mean, 700.0 / 3},
		{"audio rtf mean keeps zeros", r.AudioRTF.Mean, 0.5 / 3},
		{"audio total duration", r.AudioTotalDuration, 5},
		{"audio frames", float64(r.AudioTotalFrames), 120000},
		{"audio throughput", r.AudioThroughput, 1.25},
		{"audio duration median", r.AudioDuration.Median, 0},
		{"underrun mean (s)", r.AudioUnderrun.Mean, 0.2 / 3},
		{"underrun measured", float64(r.UnderrunMeasured), 2},
		{"continuity OK rate", r.ContinuityOKRate, 2.0 / 3},
		{"images", float64(r.Images), 1},
		{"image throughput", r.ImageThroughput, 0.25},
		{"average pixels", r.AvgPixels, 1048576},
		{"mean denoise step", r.MeanDenoiseStepMS, 16},
		{"image generation mean", r.ImageGeneration.Mean, 800},
		{"ttfc only from requests that had one", r.TTFC.Mean, 300},
	}
	for _, c := range checks {
		if !near(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if r.RequestGoodput != nil {
		t.Errorf("goodput without SLOs = %v, want nil", *r.RequestGoodput)
	}
}

func TestPeaksUseOneSecondBuckets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		reqs        []Request
		tokens      float64
		concurrency int
	}{
		{"back-to-back requests share a bucket", []Request{
			{Success: true, Start: 0, Latency: time.Second, TTFT: ms(100), OutputTokens: 1},
			{Success: true, Start: time.Second, Latency: time.Second, TTFT: ms(100), OutputTokens: 1},
		}, 1, 2},
		{"text-less requests add no tokens", []Request{
			{Success: true, Start: 0, Latency: ms(1500), Images: 1},
		}, 0, 1},
		{"failed requests are ignored", []Request{
			{Success: false, Start: 0, Latency: ms(10000), TTFT: ms(1), ITL: msList(1, 1, 1)},
			{Success: true, Start: ms(5000), Latency: ms(200), TTFT: ms(100), ITL: msList(10, 10), OutputTokens: 3},
		}, 3, 1},
		{"token exactly on the last edge stays in range", []Request{
			{Success: true, Start: 0, Latency: 2 * time.Second, TTFT: time.Second, ITL: msList(1000), OutputTokens: 2},
		}, 1, 1},
		{"no successful request", nil, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tok, conc := peaks(tt.reqs)
			if tok != tt.tokens || conc != tt.concurrency {
				t.Errorf("peaks = %v, %d; want %v, %d", tok, conc, tt.tokens, tt.concurrency)
			}
		})
	}
}

func TestGoodput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		slos []string
		want float64 // req/s over 4 s
	}{
		{"ttft and tpot; a request without TPOT is not good", []string{"ttft:300", "tpot:200"}, 0.25},
		{"e2el", []string{"e2el:1500"}, 0.5},
		{"audio_ttfp counts the zero of audio-less requests", []string{"audio_ttfp:500"}, 0.5},
		{"audio_ttft is accepted as audio_ttfp", []string{"audio_ttft:800"}, 0.75},
		{"limits are inclusive", []string{"ttft:500", "e2el:2500"}, 0.75},
		{"ttfc; unmeasured is not good", []string{"ttfc:500"}, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			slos, err := ParseGoodput(tt.slos)
			if err != nil {
				t.Fatal(err)
			}
			r := Aggregate(mixedRun(), 4*time.Second, Options{Goodput: slos})
			if r.RequestGoodput == nil || !near(*r.RequestGoodput, tt.want) {
				t.Errorf("goodput = %v, want %v", r.RequestGoodput, tt.want)
			}
		})
	}
}

func TestParseGoodputRejectsUnknownAndMalformed(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"ttft", "speed:10", "ttft:-1", "ttft:abc", "e2el:inf"} {
		if _, err := ParseGoodput([]string{arg}); err == nil {
			t.Errorf("ParseGoodput(%q) succeeded", arg)
		}
	}
}

func TestRequestTPOT(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		req  Request
		want time.Duration
		ok   bool
	}{
		{"mean of ITL entries", Request{OutputTokens: 4, TTFT: ms(100), ITL: msList(10, 20, 30)}, ms(20), true},
		{"text span without ITL", Request{OutputTokens: 3, TTFT: ms(200), TextLatency: ms(1000)}, ms(400), true},
		{"single token has none", Request{OutputTokens: 1, TTFT: ms(200), TextLatency: ms(1000)}, 0, false},
		{"no positive span has none", Request{OutputTokens: 3, TTFT: ms(200), TextLatency: ms(200)}, 0, false},
		{"no text has none", Request{OutputTokens: 0}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := requestTPOT(&tt.req)
			if got != tt.want || ok != tt.ok {
				t.Errorf("requestTPOT = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestAggregateEmptyNeverNaN(t *testing.T) {
	t.Parallel()
	for _, dur := range []time.Duration{0, time.Second} {
		r := Aggregate(nil, dur, Options{Goodput: []SLO{{Metric: "ttft", Max: time.Second}}})
		for name, v := range map[string]float64{
			"throughput": r.RequestThroughput, "goodput": *r.RequestGoodput, "ttft": r.TTFT.Mean,
			"tpot p99": r.TPOT.Percentiles[0].Value, "e2el": r.E2EL.Median, "pixels": r.AvgPixels,
			"denoise": r.MeanDenoiseStepMS, "rtfx": r.RTFx,
		} {
			if math.IsNaN(v) || math.IsInf(v, 0) || v != 0 {
				t.Errorf("duration %v: %s = %v, want 0", dur, name, v)
			}
		}
		if r.ContinuityOKRate != 1 {
			t.Errorf("continuity OK rate without requests = %v, want 1", r.ContinuityOKRate)
		}
	}
}

func TestAggregatePercentilesOption(t *testing.T) {
	t.Parallel()
	r := Aggregate(mixedRun(), 4*time.Second, Options{Percentiles: []float64{50, 99.9}})
	got := r.E2EL.Percentiles
	if len(got) != 2 || got[0].P != 50 || !near(got[0].Value, 1000) || got[1].P != 99.9 || !near(got[1].Value, 2497) {
		t.Errorf("E2EL percentiles = %+v", got)
	}
}

// A request whose text chunks arrived together has ITL entries of 0: its TPOT is 0, not
// missing (latest upstream: the mean of the entries, unconditionally).
func TestTPOTOfBurstChunksIsZeroNotMissing(t *testing.T) {
	t.Parallel()
	q := Request{Success: true, OutputTokens: 3, TTFT: 10 * time.Millisecond, TextLatency: 10 * time.Millisecond,
		ITL: []time.Duration{0, 0}}
	got, ok := requestTPOT(&q)
	if !ok || got != 0 {
		t.Fatalf("requestTPOT = %v, %v; want 0, true", got, ok)
	}
	r := Aggregate([]Request{q}, time.Second, Options{Goodput: []SLO{{Metric: "tpot", Max: time.Millisecond}}})
	if r.TPOT.N != 1 || r.RequestGoodput == nil || *r.RequestGoodput != 1 {
		t.Errorf("TPOT samples %d, goodput %v; want 1 sample and a good request", r.TPOT.N, r.RequestGoodput)
	}
}
