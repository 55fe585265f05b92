package report

import (
	"slices"
	"strconv"
)

// StageKind is how a stage's rows are printed, inferred from its output types as upstream
// does (no stage descriptor exists).
type StageKind int

// Stage kinds, in the order they are checked.
const (
	StageVideo  StageKind = iota + 1 // Video Result with Video Generation
	StageImage                       // Image Result with Image Generation
	StageText                        // Stage Timing, then Text Result
	StageAudio                       // Stage Timing, then Audio Result
	StageStream                      // Stage Timing, then Internal Stream Result (e.g. the talker)
	StageOther                       // Stage Timing only
)

// StageResult aggregates one stage over the successful requests that reported it.
// Distributions are in ms except AudioRTF (unitless) and AudioDurations (s).
type StageResult struct {
	ID   int
	Name string
	Kind StageKind

	GenTime     Dist // stage_gen_time, one per row
	Postprocess Dist // N is 0 unless some row had a postprocess time > 0

	Tokens      int  // text: Σ num_tokens_out
	ServingTTFT Dist // text: serving time to first output > 0
	TTFT        Dist // text: engine vllm_ttft_ms > 0
	TPOT        Dist // text: engine vllm_tpot_ms > 0
	ITL         Dist // text: engine vllm_itls_ms, flattened

	AudioDuration        float64 // s, Σ reported durations
	AudioFrames          int64
	ServingTTFP          Dist // audio: serving time to first output > 0
	AudioRTF             Dist // audio: server audio_rtf > 0 (#3628 servers only)
	AudioDurations       Dist // audio: audio_duration_s > 0
	MissingAudioDuration int  // audio rows without a duration

	TTFC Dist // stream: every reported serving time to first output, zeros kept
	TPOP Dist // stream: rows with more than one output unit
	ICL  Dist // stream: inter-output latencies, flattened

	Images int // image: Σ output_unit_count
}

// stageKind applies §6.3's flags of the final output type f and unit type u.
func stageKind(f, u string) StageKind {
	switch {
	case f == "video" || f == "videos" || u == "video":
		return StageVideo
	case f == "image" || f == "images" || u == "image":
		return StageImage
	case f == "text" || u == "text":
		return StageText
	case f == "audio" || u == "audio":
		return StageAudio
	case u == "stream":
		return StageStream
	}
	return StageOther
}

// aggregateStages groups the stage rows of successful requests by stage id, ascending.
func aggregateStages(reqs []Request, ps []float64) []StageResult {
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
		out[i] = aggregateStage(id, rows[id], ps)
	}
	return out
}

func aggregateStage(id int, rows []*Stage, ps []float64) StageResult {
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

var stageKindNames = map[StageKind]string{
	StageVideo: "video", StageImage: "image", StageText: "text",
	StageAudio: "audio", StageStream: "stream", StageOther: "other",
}

// String is the kind's name, as saved in the result file.
func (k StageKind) String() string { return stageKindNames[k] }
