package report

import (
	"maps"
	"slices"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/record"
)

// Accumulator folds request records one at a time into the Result of the Serving and
// Stage blocks, without keeping them: counts and totals are sums, every distribution is
// a series fed from the record's measures (record.Measures, as the omni metrics are),
// goodput and continuity are judged as records arrive, and the 1-second peaks come from
// the events of each second by millisecond (see timeline). Its memory is bounded by the
// budget, plus for the peaks 2 bytes an event (an output token, a start, an end) of each
// second, at most 8 kB a second. It is not safe for concurrent use.
type Accumulator struct {
	opts Options

	completed, failed       int
	interrupted             int // cut off by the run: neither completed nor failed
	speech, notSpeech       int // requests to speech's endpoints, and to the others
	totalInput, totalOutput int
	good                    int
	measured, continuityOK  int // requests with a continuity measurement, and those within the threshold
	images                  int
	audioSeconds            float64 // summed in arrival order, as the reference sums its list
	audioFrames, pixels     int64
	videoSeconds            float64
	videoFrames             int64
	lists                   []list
	// timeline is nil when the requests' events are in others' timelines: peaksOf, whose
	// union the requests are.
	timeline *timeline
	peaksOf  []*timeline
	stages   map[int]*stageAccumulator
	server   serverStats
}

// list is one distribution of the global blocks and the measure that fills it.
type list struct {
	measure record.Measure
	series
}

// globalLists are the measures with a global block or result key, in Result order.
var globalLists = []string{"e2el", "ttft", "ttfc", "tpot", "itl", "audio_ttfp", "audio_rtf",
	"audio_duration", "audio_underrun", "image_generation", "denoise_step", "video_rtf", "video_generation"}

// NewAccumulator returns an empty Accumulator. opts are fixed here because requests are
// judged against the SLOs and the continuity threshold as they arrive.
func NewAccumulator(opts Options) *Accumulator {
	tl := newTimeline()
	a := newAccumulator(opts, []*timeline{tl})
	a.timeline = tl
	return a
}

// newAccumulator returns an empty Accumulator that keeps no events of its own: its
// peaks are those of the requests of the timelines together, which its owner fills
// with the successful requests it adds, each in one of them.
func newAccumulator(opts Options, peaksOf []*timeline) *Accumulator {
	a := &Accumulator{opts: opts, peaksOf: peaksOf, stages: map[int]*stageAccumulator{}, server: newServerStats(opts.TrendBudget)}
	for _, name := range globalLists {
		a.lists = append(a.lists, list{record.MeasureNamed(name), newSeries(opts.TrendBudget)})
	}
	return a
}

// requests counts every request folded, however it ended.
func (a *Accumulator) requests() int { return a.completed + a.failed + a.interrupted }

// Add folds one finished request. Only successful requests enter a distribution; a
// failure or an interruption only counts.
func (a *Accumulator) Add(r *record.Record) {
	speech := r.Endpoint == record.EndpointSpeech || r.Endpoint == record.EndpointAudioStream
	if speech {
		a.speech++
	} else {
		a.notSpeech++
	}
	if r.Interrupted() {
		a.interrupted++
		return
	}
	if !r.OK() {
		a.failed++
		return
	}
	a.completed++
	a.totalInput += r.Usage.Prompt
	if !speech {
		// A speech response's output tokens are codec tokens, not text: the reference
		// counts none, so a TTS run's Text Result is its input tokens.
		a.totalOutput += r.Usage.Completion
	}
	for _, l := range a.lists {
		l.measure.Each(r, l.add)
	}
	a.audioSeconds += r.Audio.Seconds
	a.audioFrames += r.Audio.Frames
	if u, ok := record.AudioUnderrun(r); ok {
		a.measured++
		if u <= a.opts.continuityThreshold().Seconds() {
			a.continuityOK++
		}
	}
	a.images += record.ImageCount(r)
	a.pixels += r.Images.Pixels
	if r.Endpoint == record.EndpointVideos {
		a.videoSeconds += r.Video.Seconds
		a.videoFrames += r.Video.Frames
	}
	if isGood(r, a.opts.Goodput) {
		a.good++
	}
	if a.timeline != nil {
		a.timeline.add(r)
	}
	for _, id := range r.StageIDs() {
		a.stage(r.Stages[id].ID).add(r.Stages[id])
	}
	a.server.add(r)
}

func (a *Accumulator) stage(id int) *stageAccumulator {
	s, ok := a.stages[id]
	if !ok {
		s = newStageAccumulator(id, a.opts.TrendBudget)
		a.stages[id] = s
	}
	return s
}

// dist is the named global list in the printed unit.
func (a *Accumulator) dist(name string, ps []float64, div float64) Dist {
	i := slices.Index(globalLists, name)
	return a.lists[i].dist(ps, div)
}

// Result computes the blocks of the requests added so far, over a run of the given
// duration.
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
		Interrupted:      a.interrupted,
		TotalInput:       a.totalInput,
		TotalOutput:      a.totalOutput,
		AudioTotalFrames: a.audioFrames,
		UnderrunMeasured: a.measured,
		Images:           a.images,
		SpeechOnly:       a.speech > 0 && a.notSpeech == 0,
	}
	dur := duration.Seconds()
	r.RequestThroughput = perSecond(float64(r.Completed), dur)
	if len(a.opts.Goodput) > 0 {
		g := perSecond(float64(a.good), dur)
		r.RequestGoodput = &g
	}
	r.OutputThroughput = perSecond(float64(r.TotalOutput), dur)
	r.TotalTokenThroughput = perSecond(float64(r.TotalInput+r.TotalOutput), dur)
	r.AudioTotalDuration = a.audioSeconds
	r.AudioThroughput = perSecond(r.AudioTotalDuration, dur)
	r.ImageThroughput = perSecond(float64(r.Images), dur)
	// Over the requests that were measured: a chat request has no playback to judge.
	r.ContinuityOKRate = 1
	if a.measured > 0 {
		r.ContinuityOKRate = float64(a.continuityOK) / float64(a.measured)
	}
	if r.Images > 0 {
		r.AvgPixels = float64(a.pixels) / float64(r.Images)
	}
	r.MeanDenoiseStepMS = a.dist("denoise_step", nil, 1).Mean
	r.PeakOutputTokens, r.PeakConcurrency = peaks(a.peaksOf...)

	r.E2EL = a.dist("e2el", ps, 1)
	r.TTFT = a.dist("ttft", ps, 1)
	r.TTFC = a.dist("ttfc", ps, 1)
	r.TPOT = a.dist("tpot", ps, 1)
	r.ITL = a.dist("itl", ps, 1)
	r.AudioTTFP = a.dist("audio_ttfp", ps, 1)
	r.AudioRTF = a.dist("audio_rtf", ps, 1)
	r.AudioDuration = a.dist("audio_duration", ps, 1000)
	r.AudioUnderrun = a.dist("audio_underrun", ps, 1000)
	r.ImageGeneration = a.dist("image_generation", ps, 1)
	r.VideoTotalDuration, r.VideoTotalFrames = a.videoSeconds, a.videoFrames
	r.VideoThroughput = perSecond(a.videoSeconds, dur)
	r.VideoRTF = a.dist("video_rtf", ps, 1)
	r.VideoGeneration = a.dist("video_generation", ps, 1)
	ids := slices.Sorted(maps.Keys(a.stages))
	r.Stages = make([]StageResult, len(ids))
	for i, id := range ids {
		r.Stages[i] = a.stages[id].result(ps)
	}
	a.server.results(r, ps)
	return r
}

// clone returns a copy of a that goes on independently, with a timeline of its own that
// holds the events of a's requests.
func (a *Accumulator) clone() *Accumulator {
	c := *a
	c.lists = make([]list, len(a.lists))
	for i, l := range a.lists {
		c.lists[i] = list{l.measure, l.clone()}
	}
	tl := newTimeline()
	for _, o := range a.peaksOf {
		tl.absorb(o)
	}
	c.timeline, c.peaksOf = tl, []*timeline{tl}
	c.stages = make(map[int]*stageAccumulator, len(a.stages))
	for id, s := range a.stages {
		c.stages[id] = s.clone()
	}
	c.server = a.server.clone()
	return &c
}
