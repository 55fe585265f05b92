package report

import (
	"maps"
	"slices"
	"time"
)

// Accumulator folds requests one at a time into the Result that Aggregate computes from
// a list, without keeping them: counts and totals are sums, every distribution is a
// series (exact up to Options.ExactSamples values, HDR beyond), goodput and continuity
// are judged as requests arrive, and the 1-second peaks come from per-millisecond
// counters (see timeline). Its memory is bounded by the budget, plus 8 kB per second of
// the run for the peaks. It is not safe for concurrent use.
type Accumulator struct {
	opts Options

	completed, failed        int
	totalInput, totalOutput  int
	good, continuityOK       int
	underrunMeasured, images int
	audioSeconds             float64 // summed in arrival order, as the reference sums its list
	audioFrames, pixels      int64
	inputAudio               time.Duration
	e2el, ttft, ttfc, tpot   series // s
	itl, audioTTFP           series // s
	audioRTF, audioDur       series // unitless, s
	underrun                 series // s, 0 for requests without a measurement
	imageGen, denoise        series // ms
	timeline                 timeline
	stages                   map[int]*stageAccumulator
}

// NewAccumulator returns an empty Accumulator. opts are fixed here because requests are
// judged against the SLOs and the continuity threshold as they arrive.
func NewAccumulator(opts Options) *Accumulator {
	a := &Accumulator{opts: opts, timeline: newTimeline(), stages: map[int]*stageAccumulator{}}
	n := opts.exactSamples()
	for _, s := range a.allSeries() {
		*s = newSeries(n)
	}
	return a
}

func (a *Accumulator) allSeries() []*series {
	return []*series{&a.e2el, &a.ttft, &a.ttfc, &a.tpot, &a.itl, &a.audioTTFP, &a.audioRTF,
		&a.audioDur, &a.underrun, &a.imageGen, &a.denoise}
}

// Add folds one finished request. Only successful requests enter a distribution; a
// failure only counts.
func (a *Accumulator) Add(q Request) {
	if !q.Success {
		a.failed++
		return
	}
	a.completed++
	a.totalInput += q.InputTokens
	a.totalOutput += q.OutputTokens
	a.ttft.add(q.TTFT.Seconds())
	if q.TTFC > 0 {
		a.ttfc.add(q.TTFC.Seconds())
	}
	a.e2el.add(q.Latency.Seconds())
	for _, d := range q.ITL {
		a.itl.add(d.Seconds())
	}
	if t, ok := requestTPOT(&q); ok {
		a.tpot.add(t.Seconds())
	}
	// One entry per successful request, 0 without audio, as the reference dilutes them.
	a.audioTTFP.add(q.AudioTTFP.Seconds())
	a.audioRTF.add(q.AudioRTF)
	a.audioDur.add(q.AudioDuration.Seconds())
	a.audioSeconds += q.AudioDuration.Seconds()
	a.audioFrames += q.AudioFrames
	var u time.Duration
	if q.AudioUnderrun != nil {
		u = *q.AudioUnderrun
		a.underrunMeasured++
	}
	a.underrun.add(u.Seconds())
	if u <= a.opts.continuityThreshold() {
		a.continuityOK++
	}
	a.images += q.Images
	a.pixels += q.ImagePixels
	if q.ImageGenerationMS > 0 {
		a.imageGen.add(q.ImageGenerationMS)
	}
	if q.DenoiseStepMS > 0 {
		a.denoise.add(q.DenoiseStepMS)
	}
	a.inputAudio += q.InputAudioDuration
	if isGood(&q, a.opts.Goodput) {
		a.good++
	}
	a.timeline.add(&q)
	for i := range q.Stages {
		a.stage(q.Stages[i].ID).add(&q.Stages[i])
	}
}

func (a *Accumulator) stage(id int) *stageAccumulator {
	s, ok := a.stages[id]
	if !ok {
		s = newStageAccumulator(id, a.opts.exactSamples())
		a.stages[id] = s
	}
	return s
}

// Merge adds o's requests as if they had been added after a's own, so a stage's name
// and types come from a when it has rows; o is left unchanged. Both must have been made
// with the same Options. Statistics stay exact while the merged lists fit the budget;
// float totals may differ from one sequential Add in the last bit (summation order).
func (a *Accumulator) Merge(o *Accumulator) {
	a.completed += o.completed
	a.failed += o.failed
	a.totalInput += o.totalInput
	a.totalOutput += o.totalOutput
	a.good += o.good
	a.continuityOK += o.continuityOK
	a.underrunMeasured += o.underrunMeasured
	a.images += o.images
	a.audioSeconds += o.audioSeconds
	a.audioFrames += o.audioFrames
	a.pixels += o.pixels
	a.inputAudio += o.inputAudio
	theirs := o.allSeries()
	for i, s := range a.allSeries() {
		s.merge(*theirs[i])
	}
	a.timeline.merge(&o.timeline)
	for id, s := range o.stages {
		a.stage(id).merge(s)
	}
}

// Result computes what Aggregate computes from the same requests, over a run of the
// given duration.
func (a *Accumulator) Result(duration time.Duration) *Result {
	ps := a.opts.percentiles()
	r := &Result{
		Duration:         duration,
		MaxConcurrency:   a.opts.MaxConcurrency,
		RequestRate:      a.opts.RequestRate,
		Percentiles:      ps,
		Goodput:          a.opts.Goodput,
		Completed:        a.completed,
		Failed:           a.failed,
		TotalInput:       a.totalInput,
		TotalOutput:      a.totalOutput,
		AudioTotalFrames: a.audioFrames,
		UnderrunMeasured: a.underrunMeasured,
		Images:           a.images,
	}
	dur := duration.Seconds()
	r.RequestThroughput = perSecond(float64(r.Completed), dur)
	if len(a.opts.Goodput) > 0 {
		g := perSecond(float64(a.good), dur)
		r.RequestGoodput = &g
	}
	r.OutputThroughput = perSecond(float64(r.TotalOutput), dur)
	r.TotalTokenThroughput = perSecond(float64(r.TotalInput+r.TotalOutput), dur)
	r.RTFx = perSecond(a.inputAudio.Seconds(), dur)
	r.AudioTotalDuration = a.audioSeconds
	r.AudioThroughput = perSecond(r.AudioTotalDuration, dur)
	r.ImageThroughput = perSecond(float64(r.Images), dur)
	r.ContinuityOKRate = 1
	if r.Completed > 0 {
		r.ContinuityOKRate = float64(a.continuityOK) / float64(r.Completed)
	}
	if r.Images > 0 {
		r.AvgPixels = float64(a.pixels) / float64(r.Images)
	}
	r.MeanDenoiseStepMS = a.denoise.dist(nil, 1).Mean
	r.PeakOutputTokens, r.PeakConcurrency = a.timeline.peaks()

	r.E2EL = a.e2el.dist(ps, 1000)
	r.TTFT = a.ttft.dist(ps, 1000)
	r.TTFC = a.ttfc.dist(ps, 1000)
	r.TPOT = a.tpot.dist(ps, 1000)
	r.ITL = a.itl.dist(ps, 1000)
	r.AudioTTFP = a.audioTTFP.dist(ps, 1000)
	r.AudioRTF = a.audioRTF.dist(ps, 1)
	r.AudioDuration = a.audioDur.dist(ps, 1)
	r.AudioUnderrun = a.underrun.dist(ps, 1)
	r.ImageGeneration = a.imageGen.dist(ps, 1)
	ids := slices.Sorted(maps.Keys(a.stages))
	r.Stages = make([]StageResult, len(ids))
	for i, id := range ids {
		r.Stages[i] = a.stages[id].result(ps)
	}
	return r
}
