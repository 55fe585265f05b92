package report

import (
	"math"
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
// run's requests may be passed, e.g. one scenario's. It is an Accumulator fed with reqs.
func Aggregate(reqs []Request, duration time.Duration, opts Options) *Result {
	a := NewAccumulator(opts)
	for i := range reqs {
		a.Add(reqs[i])
	}
	return a.Result(duration)
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
