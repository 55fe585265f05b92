package report

import (
	"math"
	"slices"
	"time"
)

// Result is the aggregate of a set of requests: everything the Serving and Stage blocks
// and the result file print. Latency distributions are in ms, audio durations and
// underruns in s, RTF unitless.
type Result struct {
	Duration       time.Duration
	MaxConcurrency int     // 0: not set
	RequestRate    float64 // 0 or +Inf: unbounded
	Percentiles    []float64
	Goodput        []SLO

	Completed, Failed       int
	TotalInput, TotalOutput int

	RequestThroughput    float64
	RequestGoodput       *float64 // nil without SLOs
	OutputThroughput     float64
	TotalTokenThroughput float64
	PeakOutputTokens     float64 // max tokens in one 1-second bucket
	PeakConcurrency      int     // max requests active in one 1-second bucket
	RTFx                 float64

	E2EL, TTFT, TPOT, ITL Dist
	TTFC                  Dist // omnik: client time to first chunk, requests that had one

	AudioTotalDuration float64 // s
	AudioTotalFrames   int64
	AudioThroughput    float64
	ContinuityOKRate   float64
	AudioTTFP          Dist // ms, one per successful request (0 without audio)
	AudioRTF           Dist // one per successful request (0 without audio)
	AudioDuration      Dist // s
	AudioUnderrun      Dist // s, 0 for requests without a measurement
	UnderrunMeasured   int  // requests that carried an underrun measurement

	Images            int
	ImageThroughput   float64
	AvgPixels         float64
	MeanDenoiseStepMS float64
	ImageGeneration   Dist // ms, requests with a generation time

	Stages []StageResult
}

// Aggregate computes the Result of reqs over a run of the given duration. Any subset of a
// run's requests may be passed, e.g. one scenario's.
func Aggregate(reqs []Request, duration time.Duration, opts Options) *Result {
	ps := opts.percentiles()
	r := &Result{
		Duration:       duration,
		MaxConcurrency: opts.MaxConcurrency,
		RequestRate:    opts.RequestRate,
		Percentiles:    ps,
		Goodput:        opts.Goodput,
	}
	var (
		ttft, ttfc, e2el, itl, tpot, audioTTFP []float64
		audioRTF, audioDur, underrun, imgGen   []float64
		denoise                                []float64
		pixels                                 int64
		inputAudio                             time.Duration
		good, continuityOK                     int
	)
	threshold := opts.continuityThreshold()
	for i := range reqs {
		q := &reqs[i]
		if !q.Success {
			r.Failed++
			continue
		}
		r.Completed++
		r.TotalInput += q.InputTokens
		r.TotalOutput += q.OutputTokens
		ttft = append(ttft, q.TTFT.Seconds())
		if q.TTFC > 0 {
			ttfc = append(ttfc, q.TTFC.Seconds())
		}
		e2el = append(e2el, q.Latency.Seconds())
		itl = append(itl, seconds(q.ITL)...)
		if t, ok := requestTPOT(q); ok {
			tpot = append(tpot, t.Seconds())
		}
		audioTTFP = append(audioTTFP, q.AudioTTFP.Seconds())
		audioRTF = append(audioRTF, q.AudioRTF)
		audioDur = append(audioDur, q.AudioDuration.Seconds())
		r.AudioTotalDuration += q.AudioDuration.Seconds()
		r.AudioTotalFrames += q.AudioFrames
		var u time.Duration
		if q.AudioUnderrun != nil {
			u = *q.AudioUnderrun
			r.UnderrunMeasured++
		}
		underrun = append(underrun, u.Seconds())
		if u <= threshold {
			continuityOK++
		}
		r.Images += q.Images
		pixels += q.ImagePixels
		if q.ImageGenerationMS > 0 {
			imgGen = append(imgGen, q.ImageGenerationMS)
		}
		if q.DenoiseStepMS > 0 {
			denoise = append(denoise, q.DenoiseStepMS)
		}
		inputAudio += q.InputAudioDuration
		if isGood(q, opts.Goodput) {
			good++
		}
	}

	dur := duration.Seconds()
	r.RequestThroughput = perSecond(float64(r.Completed), dur)
	if len(opts.Goodput) > 0 {
		g := perSecond(float64(good), dur)
		r.RequestGoodput = &g
	}
	r.OutputThroughput = perSecond(float64(r.TotalOutput), dur)
	r.TotalTokenThroughput = perSecond(float64(r.TotalInput+r.TotalOutput), dur)
	r.RTFx = perSecond(inputAudio.Seconds(), dur)
	r.AudioThroughput = perSecond(r.AudioTotalDuration, dur)
	r.ImageThroughput = perSecond(float64(r.Images), dur)
	r.ContinuityOKRate = 1
	if r.Completed > 0 {
		r.ContinuityOKRate = float64(continuityOK) / float64(r.Completed)
	}
	if r.Images > 0 {
		r.AvgPixels = float64(pixels) / float64(r.Images)
	}
	r.MeanDenoiseStepMS = summarize(denoise, nil, 1).Mean
	r.PeakOutputTokens, r.PeakConcurrency = peaks(reqs)

	r.E2EL = summarize(e2el, ps, 1000)
	r.TTFT = summarize(ttft, ps, 1000)
	r.TTFC = summarize(ttfc, ps, 1000)
	r.TPOT = summarize(tpot, ps, 1000)
	r.ITL = summarize(itl, ps, 1000)
	r.AudioTTFP = summarize(audioTTFP, ps, 1000)
	r.AudioRTF = summarize(audioRTF, ps, 1)
	r.AudioDuration = summarize(audioDur, ps, 1)
	r.AudioUnderrun = summarize(underrun, ps, 1)
	r.ImageGeneration = summarize(imgGen, ps, 1)
	r.Stages = aggregateStages(reqs, ps)
	return r
}

// unboundedRate reports a request rate of "inf", which is also what 0 means.
func (r *Result) unboundedRate() bool { return r.RequestRate <= 0 || math.IsInf(r.RequestRate, 1) }

// perSecond divides by the run duration; an empty run gives 0 rather than Inf or NaN.
func perSecond(v, dur float64) float64 {
	if dur <= 0 {
		return 0
	}
	return v / dur
}

// requestTPOT is the latest upstream per-request TPOT: the mean ITL entry, else the text
// span over n-1 tokens; no sample for single-token requests or without a positive span.
func requestTPOT(q *Request) (time.Duration, bool) {
	if q.OutputTokens <= 1 {
		return 0, false
	}
	if len(q.ITL) > 0 {
		var sum time.Duration
		for _, d := range q.ITL {
			sum += d
		}
		mean := sum / time.Duration(len(q.ITL))
		return mean, true
	}
	if q.TextLatency > q.TTFT && q.TTFT > 0 {
		return (q.TextLatency - q.TTFT) / time.Duration(q.OutputTokens-1), true
	}
	return 0, false
}

// isGood reports whether a successful request meets every SLO.
func isGood(q *Request, slos []SLO) bool {
	for _, s := range slos {
		read, known := goodputValue[s.Metric]
		if !known {
			return false
		}
		v, ok := read(q)
		if !ok || v > s.Max {
			return false
		}
	}
	return true
}

// peaks returns the largest number of output tokens and of active requests in one of the
// 1-second buckets that start at the earliest successful start (§4.2). Integer
// nanoseconds make the bucket of each instant exact.
func peaks(reqs []Request) (tokens float64, concurrency int) {
	first, last := time.Duration(math.MaxInt64), time.Duration(math.MinInt64)
	for i := range reqs {
		if q := &reqs[i]; q.Success {
			first = min(first, q.Start)
			last = max(last, q.Start+q.Latency)
		}
	}
	if first > last {
		return 0, 0
	}
	buckets := int((last-first+time.Second-1)/time.Second) + 1
	tok := make([]int, buckets)
	conc := make([]int, buckets)
	bucket := func(t time.Duration) int { return int((t - first) / time.Second) }
	countToken := func(t time.Duration) {
		if b := bucket(t); b >= 0 && b < buckets {
			tok[b]++
		}
	}
	for i := range reqs {
		q := &reqs[i]
		if !q.Success {
			continue
		}
		// Latest upstream skips requests without text so image runs get no fake token.
		if q.OutputTokens > 0 || len(q.ITL) > 0 || q.TTFT > 0 {
			t := q.Start + q.TTFT
			countToken(t)
			for _, gap := range q.ITL {
				t += gap
				countToken(t)
			}
		}
		for b := bucket(q.Start); b <= bucket(q.Start+q.Latency); b++ {
			conc[b]++
		}
	}
	return float64(slices.Max(tok)), slices.Max(conc)
}
