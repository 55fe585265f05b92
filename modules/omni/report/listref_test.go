package report

import (
	"math"
	"slices"
	"strconv"
	"time"
)

// This file keeps the list-based implementation that Accumulator replaced, unchanged but
// for its names, as the oracle of accumulator_test.go.

// listAggregate computes the Result of reqs over a run of the given duration, keeping
// every value in lists.
func listAggregate(reqs []Request, duration time.Duration, opts Options) *Result {
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
		itl = append(itl, listSeconds(q.ITL)...)
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
	r.PeakOutputTokens, r.PeakConcurrency = listPeaks(reqs)

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
	r.Stages = listStages(reqs, ps)
	return r
}

// listPeaks returns the largest number of output tokens and of active requests in one of the
// 1-second buckets that start at the earliest successful start (§4.2). Integer
// nanoseconds make the bucket of each instant exact.
func listPeaks(reqs []Request) (tokens float64, concurrency int) {
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

// listStages groups the stage rows of successful requests by stage id, ascending.
func listStages(reqs []Request, ps []float64) []StageResult {
	rows := map[int][]*Stage{}
	for i := range reqs {
		if !reqs[i].Success {
			continue
		}
		for j := range reqs[i].Stages {
			s := &reqs[i].Stages[j]
			rows[s.ID] = append(rows[s.ID], s)
		}
	}
	ids := make([]int, 0, len(rows))
	for id := range rows {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	out := make([]StageResult, len(ids))
	for i, id := range ids {
		out[i] = listStage(id, rows[id], ps)
	}
	return out
}

func listStage(id int, rows []*Stage, ps []float64) StageResult {
	sr := StageResult{ID: id, Name: rows[0].Name}
	if sr.Name == "" {
		sr.Name = "stage_" + strconv.Itoa(id)
	}
	unit := "other"
	for _, s := range rows {
		if s.OutputUnitType != "" {
			unit = s.OutputUnitType
			break
		}
	}
	sr.Kind = stageKind(rows[0].FinalOutputType, unit)

	var gen, post, servingTTFT, ttft, tpot, itl, ttfp, rtf, durs, ttfc, tpop, icl []float64
	anyPost := false
	for _, s := range rows {
		gen = append(gen, s.GenTimeMS)
		post = append(post, s.PostprocessMS)
		anyPost = anyPost || s.PostprocessMS > 0
		if unit == "image" {
			sr.Images += s.OutputUnitCount
		}
		ttfo := 0.0
		if s.ServingTTFOMS != nil {
			ttfo = *s.ServingTTFOMS
		}
		switch sr.Kind {
		case StageText:
			sr.Tokens += s.NumTokensOut
			ttft = appendPositive(ttft, s.VLLMTTFTMS)
			tpot = appendPositive(tpot, s.VLLMTPOTMS)
			servingTTFT = appendPositive(servingTTFT, ttfo)
			itl = appendSeries(itl, s.VLLMITLsMS, s.VLLMMeanITLMS)
		case StageAudio:
			ttfp = appendPositive(ttfp, ttfo)
			rtf = appendPositive(rtf, s.AudioRTF)
			frames := s.AudioFrames
			if frames <= 0 && s.OutputUnitType == "audio" {
				frames = int64(s.OutputUnitCount)
			}
			sr.AudioFrames += frames
			if s.AudioDurationS > 0 {
				durs = append(durs, s.AudioDurationS)
				sr.AudioDuration += s.AudioDurationS
			} else {
				sr.MissingAudioDuration++
			}
		case StageStream:
			if s.ServingTTFOMS != nil {
				ttfc = append(ttfc, ttfo)
			}
			if s.OutputUnitCount > 1 && s.TPOPMS != nil {
				tpop = append(tpop, *s.TPOPMS)
			}
			icl = appendSeries(icl, s.ICLMS, s.MeanICLMS)
		}
	}
	sr.GenTime = summarizeMS(gen, ps)
	if anyPost {
		sr.Postprocess = summarizeMS(post, ps)
	}
	sr.ServingTTFT = summarizeMS(servingTTFT, ps)
	sr.TTFT = summarizeMS(ttft, ps)
	sr.TPOT = summarizeMS(tpot, ps)
	sr.ITL = summarizeMS(itl, ps)
	sr.ServingTTFP = summarizeMS(ttfp, ps)
	sr.AudioRTF = summarize(rtf, ps, 1)
	sr.AudioDurations = summarize(durs, ps, 1)
	sr.TTFC = summarizeMS(ttfc, ps)
	sr.TPOP = summarizeMS(tpop, ps)
	sr.ICL = summarizeMS(icl, ps)
	return sr
}

func appendPositive(xs []float64, v float64) []float64 {
	if v > 0 {
		return append(xs, v)
	}
	return xs
}

// appendSeries adds a row's list of gaps, or its single mean when the server sent no list.
func appendSeries(xs, list []float64, mean *float64) []float64 {
	if list != nil {
		return append(xs, list...)
	}
	if mean != nil {
		return append(xs, *mean)
	}
	return xs
}

// summarizeMS summarises server millisecond values: converted to seconds first and back
// to ms after the statistics, so rounding matches the reference exactly.
func summarizeMS(ms []float64, ps []float64) Dist {
	s := make([]float64, len(ms))
	for i, v := range ms {
		s[i] = v / 1000
	}
	return summarize(s, ps, 1000)
}

func listSeconds(ds []time.Duration) []float64 {
	s := make([]float64, len(ds))
	for i, d := range ds {
		s[i] = d.Seconds()
	}
	return s
}
