package report

import "strconv"

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

// stageAccumulator folds one stage's rows (§6.3). The kind is known only once a row
// names the unit type, so each list takes, from every row, the values its kind would
// take; result reports the lists of the kind. Lists of server ms are kept in s, as the
// reference converts them before the statistics.
type stageAccumulator struct {
	id                int
	rows              int
	name, final, unit string // the first row's name and final type; the first non-empty unit type

	gen, post                  series // every row, missing = 0
	anyPost                    bool
	servingPositive            series // text Serving TTFT and audio Serving TTFP: ttfo > 0
	servingReported            series // stream TTFC: every reported ttfo, zeros kept
	ttft, tpot, itl            series // text, engine clock
	rtf, durations             series // audio: server audio_rtf > 0 (unitless), audio_duration_s > 0 (s)
	tpop, icl                  series // stream
	tokens, unitCount, missing int
	frames                     int64
	audioSeconds               float64
}

func newStageAccumulator(id, budget int) *stageAccumulator {
	s := &stageAccumulator{id: id}
	for _, l := range s.allSeries() {
		*l = newSeries(budget)
	}
	return s
}

func (a *stageAccumulator) allSeries() []*series {
	return []*series{&a.gen, &a.post, &a.servingPositive, &a.servingReported, &a.ttft, &a.tpot,
		&a.itl, &a.rtf, &a.durations, &a.tpop, &a.icl}
}

func (a *stageAccumulator) add(s *Stage) {
	if a.rows == 0 {
		a.name, a.final = s.Name, s.FinalOutputType
	}
	if a.unit == "" {
		a.unit = s.OutputUnitType
	}
	a.rows++
	a.gen.add(s.GenTimeMS / 1000)
	a.post.add(s.PostprocessMS / 1000)
	a.anyPost = a.anyPost || s.PostprocessMS > 0
	a.unitCount += s.OutputUnitCount
	a.tokens += s.NumTokensOut
	if s.ServingTTFOMS != nil {
		addPositiveMS(a.servingPositive, *s.ServingTTFOMS)
		a.servingReported.add(*s.ServingTTFOMS / 1000)
	}
	addPositiveMS(a.ttft, s.VLLMTTFTMS)
	addPositiveMS(a.tpot, s.VLLMTPOTMS)
	addSeriesMS(a.itl, s.VLLMITLsMS, s.VLLMMeanITLMS)
	if s.AudioRTF > 0 {
		a.rtf.add(s.AudioRTF)
	}
	frames := s.AudioFrames
	if frames <= 0 && s.OutputUnitType == "audio" {
		frames = int64(s.OutputUnitCount)
	}
	a.frames += frames
	if s.AudioDurationS > 0 {
		a.durations.add(s.AudioDurationS)
		a.audioSeconds += s.AudioDurationS
	} else {
		a.missing++
	}
	if s.OutputUnitCount > 1 && s.TPOPMS != nil {
		a.tpop.add(*s.TPOPMS / 1000)
	}
	addSeriesMS(a.icl, s.ICLMS, s.MeanICLMS)
}

// merge adds o's rows after a's own; o is left unchanged.
func (a *stageAccumulator) merge(o *stageAccumulator) {
	if a.rows == 0 {
		a.name, a.final = o.name, o.final
	}
	if a.unit == "" {
		a.unit = o.unit
	}
	a.rows += o.rows
	theirs := o.allSeries()
	for i, l := range a.allSeries() {
		l.merge(*theirs[i])
	}
	a.anyPost = a.anyPost || o.anyPost
	a.tokens += o.tokens
	a.unitCount += o.unitCount
	a.missing += o.missing
	a.frames += o.frames
	a.audioSeconds += o.audioSeconds
}

// result reports the lists and totals of the stage's kind; the others stay zero.
func (a *stageAccumulator) result(ps []float64) StageResult {
	sr := StageResult{ID: a.id, Name: a.name, GenTime: a.gen.dist(ps, 1000)}
	if sr.Name == "" {
		sr.Name = "stage_" + strconv.Itoa(a.id)
	}
	unit := a.unit
	if unit == "" {
		unit = "other"
	}
	sr.Kind = stageKind(a.final, unit)
	if a.anyPost {
		sr.Postprocess = a.post.dist(ps, 1000)
	}
	if unit == "image" {
		sr.Images = a.unitCount
	}
	// Lists of other kinds report as empty, whatever their rows carried.
	for _, d := range []*Dist{&sr.ServingTTFT, &sr.TTFT, &sr.TPOT, &sr.ITL, &sr.ServingTTFP, &sr.AudioRTF,
		&sr.AudioDurations, &sr.TTFC, &sr.TPOP, &sr.ICL} {
		*d = summarize(nil, ps, 1)
	}
	switch sr.Kind {
	case StageText:
		sr.Tokens = a.tokens
		sr.ServingTTFT = a.servingPositive.dist(ps, 1000)
		sr.TTFT, sr.TPOT, sr.ITL = a.ttft.dist(ps, 1000), a.tpot.dist(ps, 1000), a.itl.dist(ps, 1000)
	case StageAudio:
		sr.AudioFrames, sr.AudioDuration, sr.MissingAudioDuration = a.frames, a.audioSeconds, a.missing
		sr.ServingTTFP = a.servingPositive.dist(ps, 1000)
		sr.AudioRTF, sr.AudioDurations = a.rtf.dist(ps, 1), a.durations.dist(ps, 1)
	case StageStream:
		sr.TTFC, sr.TPOP, sr.ICL = a.servingReported.dist(ps, 1000), a.tpop.dist(ps, 1000), a.icl.dist(ps, 1000)
	}
	return sr
}

func addPositiveMS(s series, ms float64) {
	if ms > 0 {
		s.add(ms / 1000)
	}
}

// addSeriesMS adds a row's list of gaps, or its single mean when the server sent no list.
func addSeriesMS(s series, list []float64, mean *float64) {
	switch {
	case list != nil:
		for _, v := range list {
			s.add(v / 1000)
		}
	case mean != nil:
		s.add(*mean / 1000)
	}
}

var stageKindNames = map[StageKind]string{
	StageVideo: "video", StageImage: "image", StageText: "text",
	StageAudio: "audio", StageStream: "stream", StageOther: "other",
}

// String is the kind's name, as saved in the result file.
func (k StageKind) String() string { return stageKindNames[k] }
