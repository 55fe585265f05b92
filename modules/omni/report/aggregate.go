package report

import (
	"math"
	"time"
)

// Result is the aggregate of a set of requests: everything the Serving and Stage blocks
// and the result file print. Latency distributions are in ms, audio durations and
// underruns in s, RTF unitless. Every distribution holds one value per successful request
// that produced its modality (docs/bench.md: the reference adds zeros for the others).
type Result struct {
	Duration       time.Duration
	MaxConcurrency int     // 0: not set
	RequestRate    float64 // 0 or +Inf: unbounded
	Percentiles    []float64
	Goodput        []SLO

	Completed, Failed       int
	Interrupted             int // requests the run cut off; the reference has no such row
	TotalInput, TotalOutput int
	// SpeechOnly is a run whose every request went to /v1/audio/speech (or its websocket
	// stream), and there was one: vllm bench serve's openai-audio-speech backend.
	SpeechOnly bool

	RequestThroughput    float64
	RequestGoodput       *float64 // nil without SLOs
	OutputThroughput     float64
	TotalTokenThroughput float64
	PeakOutputTokens     float64 // max tokens in one 1-second bucket
	PeakConcurrency      int     // max requests active in one 1-second bucket

	E2EL, TTFT, TPOT, ITL Dist
	TTFC                  Dist // omnik: client time to first chunk, requests that had one

	AudioTotalDuration float64 // s
	AudioTotalFrames   int64
	AudioThroughput    float64
	ContinuityOKRate   float64
	AudioTTFP          Dist // ms, requests that produced audio
	AudioRTF           Dist // requests that produced audio
	AudioDuration      Dist // s, requests that produced audio
	AudioUnderrun      Dist // s, requests with a continuity measurement (streamed speech)
	UnderrunMeasured   int  // requests that carried an underrun measurement

	Images            int
	ImageThroughput   float64
	AvgPixels         float64
	MeanDenoiseStepMS float64
	ImageGeneration   Dist // ms, requests with a generation time

	VideoTotalDuration float64 // s
	VideoTotalFrames   int64
	VideoThroughput    float64 // video seconds per second of the run
	VideoRTF           Dist    // video jobs with a duration
	VideoGeneration    Dist    // ms, video jobs whose server reported a generation time

	Stages []StageResult

	// The servers' own profile (latest upstream's Peak Memory and Stage Durations) and
	// omnik's stream-edge hand-offs (serverstats.go).
	PeakMemory     Dist // MB, requests that reported peak_memory_mb > 0
	StageDurations []StageDuration
	Edges          []EdgeResult
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
