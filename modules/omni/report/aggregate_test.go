package report

import (
	"math"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/record"
)

// mixedRun is a hand-checked mixed run over 4 s:
//
//	A chat text+audio: start 0, E2EL 2.5 s, tokens at 0.5 0.8 1.1 1.5 2.1 s (buckets 0 0 1 1 2),
//	  audio first at 0.7 s, last at 2.5 s, 5 s of it (RTF 0.5)
//	B chat text: start 1.2 s, E2EL 1.0 s, tokens at 1.4 1.5 1.6 1.7 s (bucket 1 ×4)
//	C failed
//	D image: start 3 s, E2EL 1.0 s, no text, the image at 1 s
//	E speech: start 0.5 s, E2EL 1.5 s, two 0.1 s PCM chunks at 0.1 and 0.35 s: an underrun
//	  of 0.15 s (not continuous), RTF 1.5/0.2 = 7.5
//
// Token buckets 2 6 1 0 0 → peak 6; concurrency buckets 2 3 3 1 1 → peak 3.
func mixedRun() []*record.Record {
	return []*record.Record{
		req(at(0, 2500), text(500, 300, 300, 400, 600), tokens(100, 5), chatAudio(700, 2500, 5, 120000)),
		req(at(1200, 1000), text(200, 100, 100, 100), tokens(50, 4)),
		req(at(0, 100), tokens(70, 0), failed(record.KindHTTPStatus)),
		req(at(3000, 1000), tokens(30, 0), image(1000, 1024*1024, 800, 16)),
		req(at(500, 1500), speech(4800, 100, 350)),
	}
}

// Every distribution holds one value per request that produced its modality: the image
// and speech requests add no TTFT, the text-only ones no AUDIO_TTFP (the reference adds
// zeros, docs/bench.md).
func TestAggregateCountsAndThroughputs(t *testing.T) {
	t.Parallel()
	r := aggregate(mixedRun(), 4*time.Second, Options{})
	checks := []struct {
		name      string
		got, want float64
	}{
		{"completed", float64(r.Completed), 4},
		{"failed", float64(r.Failed), 1},
		{"total input (successful only)", float64(r.TotalInput), 180},
		{"total output", float64(r.TotalOutput), 9},
		{"request throughput", r.RequestThroughput, 1},
		{"output throughput", r.OutputThroughput, 2.25},
		{"total token throughput", r.TotalTokenThroughput, 47.25},
		{"peak output tokens", r.PeakOutputTokens, 6},
		{"peak concurrency", float64(r.PeakConcurrency), 3},
		{"ttft samples: text requests only", float64(r.TTFT.N), 2},
		{"ttft mean", r.TTFT.Mean, 350},
		{"ttft p99", r.TTFT.Percentiles[0].Value, 497},
		{"tpot samples", float64(r.TPOT.N), 2},
		{"tpot mean of per-request mean ITL", r.TPOT.Mean, 250},
		{"tpot p99", r.TPOT.Percentiles[0].Value, 397},
		{"itl samples", float64(r.ITL.N), 7},
		{"itl mean", r.ITL.Mean, 1900.0 / 7},
		{"e2el mean", r.E2EL.Mean, 1500},
		{"e2el median", r.E2EL.Median, 1250},
		{"ttfc: first chunk of any modality", r.TTFC.Mean, 450},
		{"audio ttfp samples: audio requests only", float64(r.AudioTTFP.N), 2},
		{"audio ttfp mean", r.AudioTTFP.Mean, 400},
		{"audio rtf mean (chat last chunk, speech E2EL)", r.AudioRTF.Mean, 4},
		{"audio duration mean (s)", r.AudioDuration.Mean, 2.6},
		{"audio total duration", r.AudioTotalDuration, 5.2},
		{"audio frames", float64(r.AudioTotalFrames), 124800},
		{"audio throughput", r.AudioThroughput, 1.3},
		{"underrun samples: measured requests only", float64(r.AudioUnderrun.N), 1},
		{"underrun mean (s)", r.AudioUnderrun.Mean, 0.15},
		{"underrun measured", float64(r.UnderrunMeasured), 1},
		{"continuity OK rate over measured requests", r.ContinuityOKRate, 0},
		{"images", float64(r.Images), 1},
		{"image throughput", r.ImageThroughput, 0.25},
		{"average pixels", r.AvgPixels, 1048576},
		{"mean denoise step", r.MeanDenoiseStepMS, 16},
		{"image generation mean", r.ImageGeneration.Mean, 800},
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
		recs        []*record.Record
		tokens      float64
		concurrency int
	}{
		{"back-to-back requests share a bucket", []*record.Record{
			req(at(0, 1000), text(100)), req(at(1000, 1000), text(100)),
		}, 1, 2},
		{"text-less requests add no tokens", []*record.Record{req(at(0, 1500), tokens(0, 3), image(10, 1, 1, 0))}, 0, 1},
		{"failed requests are ignored", []*record.Record{
			req(at(0, 10000), text(1, 1, 1, 1), failed(record.KindReset)),
			req(at(5000, 200), text(100, 10, 10)),
		}, 3, 1},
		{"token exactly on the last edge stays in range", []*record.Record{req(at(0, 2000), text(1000, 1000))}, 1, 1},
		{"no successful request", nil, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := aggregate(tt.recs, 0, Options{})
			if r.PeakOutputTokens != tt.tokens || r.PeakConcurrency != tt.concurrency {
				t.Errorf("peaks = %v, %d; want %v, %d", r.PeakOutputTokens, r.PeakConcurrency, tt.tokens, tt.concurrency)
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
		{"e2el", []string{"e2el:1500"}, 0.75},
		{"audio_ttfp counts the zero of audio-less requests", []string{"audio_ttfp:500"}, 0.75},
		{"audio_ttft is accepted as audio_ttfp", []string{"audio_ttft:800"}, 1},
		{"limits are inclusive", []string{"ttft:500", "e2el:2500"}, 1},
		{"ttfc", []string{"ttfc:150"}, 0.25},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			slos, err := ParseGoodput(tt.slos)
			if err != nil {
				t.Fatal(err)
			}
			r := aggregate(mixedRun(), 4*time.Second, Options{Goodput: slos})
			if r.RequestGoodput == nil || !near(*r.RequestGoodput, tt.want) {
				t.Errorf("goodput = %v, want %v", r.RequestGoodput, tt.want)
			}
		})
	}
	// A request that produced nothing has no TTFC: it is not good.
	slos, _ := ParseGoodput([]string{"ttfc:1000"})
	if r := aggregate([]*record.Record{req(at(0, 10))}, time.Second, Options{Goodput: slos}); *r.RequestGoodput != 0 {
		t.Errorf("goodput of a request without any chunk = %v, want 0", *r.RequestGoodput)
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

func TestAggregateEmptyNeverNaN(t *testing.T) {
	t.Parallel()
	for _, dur := range []time.Duration{0, time.Second} {
		r := aggregate(nil, dur, Options{Goodput: []SLO{{Metric: "ttft", Max: time.Second}}})
		for name, v := range map[string]float64{
			"throughput": r.RequestThroughput, "goodput": *r.RequestGoodput, "ttft": r.TTFT.Mean,
			"tpot p99": r.TPOT.Percentiles[0].Value, "e2el": r.E2EL.Median, "pixels": r.AvgPixels,
			"denoise": r.MeanDenoiseStepMS,
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
	r := aggregate(mixedRun(), 4*time.Second, Options{Percentiles: []float64{50, 99.9}})
	got := r.E2EL.Percentiles
	if len(got) != 2 || got[0].P != 50 || !near(got[0].Value, 1250) || got[1].P != 99.9 || !near(got[1].Value, 2497) {
		t.Errorf("E2EL percentiles = %+v", got)
	}
}

// A request whose text chunks arrived together has ITL entries of 0: its TPOT is 0, not
// missing (latest upstream: the mean of the entries, unconditionally).
func TestTPOTOfBurstChunksIsZeroNotMissing(t *testing.T) {
	t.Parallel()
	q := req(at(0, 20), text(10, 0, 0))
	r := aggregate([]*record.Record{q}, time.Second, Options{Goodput: []SLO{{Metric: "tpot", Max: time.Millisecond}}})
	if r.TPOT.N != 1 || r.TPOT.Mean != 0 || r.RequestGoodput == nil || *r.RequestGoodput != 1 {
		t.Errorf("TPOT samples %d mean %v, goodput %v; want one 0 and a good request", r.TPOT.N, r.TPOT.Mean, r.RequestGoodput)
	}
}
