package report

import "github.com/omnik-dev/omnik/modules/omni/chunk"

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

	GenTime     Dist // stage_gen_time, one per row that reported it
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
// take; result reports the lists of the kind. Lists hold the server's values in their
// own unit (ms, s for audio durations).
type stageAccumulator struct {
	id                int
	rows              int
	name, final, unit string // the first row's name and final type; the first non-empty unit type

	gen, post                  series // rows that reported the value
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
	for _, l := range []*series{&s.gen, &s.post, &s.servingPositive, &s.servingReported, &s.ttft, &s.tpot,
		&s.itl, &s.rtf, &s.durations, &s.tpop, &s.icl} {
		*l = newSeries(budget)
	}
	return s
}

func (a *stageAccumulator) add(s chunk.Stage) {
	if a.rows == 0 {
		a.name, a.final = s.Name, s.FinalOutputType
	}
	if a.unit == "" {
		a.unit = s.OutputUnitType
	}
	a.rows++
	v, l := s.Values, s.Lists
	addIf(a.gen, v, "stage_gen_time_ms", false)
	addIf(a.post, v, "postprocess_time_ms", false)
	a.anyPost = a.anyPost || v["postprocess_time_ms"] > 0
	a.unitCount += int(v["output_unit_count"])
	a.tokens += int(v["num_tokens_out"])
	addIf(a.servingPositive, v, "serving_time_to_first_output_ms", true)
	addIf(a.servingReported, v, "serving_time_to_first_output_ms", false)
	addIf(a.ttft, v, "vllm_ttft_ms", true)
	addIf(a.tpot, v, "vllm_tpot_ms", true)
	addGaps(a.itl, l["vllm_itls_ms"], v, "vllm_itl_ms")
	addIf(a.rtf, v, "audio_rtf", true)
	frames := int64(v["audio_frames"])
	if frames <= 0 && s.OutputUnitType == "audio" {
		frames = int64(v["output_unit_count"])
	}
	a.frames += frames
	if d := v["audio_duration_s"]; d > 0 {
		a.durations.add(d)
		a.audioSeconds += d
	} else {
		a.missing++
	}
	if v["output_unit_count"] > 1 {
		addIf(a.tpop, v, "time_per_output_unit_ms", false)
	}
	addGaps(a.icl, l["inter_output_latencies_ms"], v, "inter_output_latency_ms")
}

// result reports the lists and totals of the stage's kind; the others stay empty.
func (a *stageAccumulator) result(ps []float64) StageResult {
	sr := StageResult{ID: a.id, Name: chunk.Stage{ID: a.id, Name: a.name}.DisplayName(), GenTime: a.gen.dist(ps, 1)}
	unit := a.unit
	if unit == "" {
		unit = "other"
	}
	sr.Kind = stageKind(a.final, unit)
	empty := newSeries(0).dist(ps, 1)
	if a.anyPost {
		sr.Postprocess = a.post.dist(ps, 1)
	}
	if unit == "image" {
		sr.Images = a.unitCount
	}
	// Lists of other kinds report as empty, whatever their rows carried.
	for _, d := range []*Dist{&sr.ServingTTFT, &sr.TTFT, &sr.TPOT, &sr.ITL, &sr.ServingTTFP, &sr.AudioRTF,
		&sr.AudioDurations, &sr.TTFC, &sr.TPOP, &sr.ICL} {
		*d = empty
	}
	switch sr.Kind {
	case StageText:
		sr.Tokens = a.tokens
		sr.ServingTTFT = a.servingPositive.dist(ps, 1)
		sr.TTFT, sr.TPOT, sr.ITL = a.ttft.dist(ps, 1), a.tpot.dist(ps, 1), a.itl.dist(ps, 1)
	case StageAudio:
		sr.AudioFrames, sr.AudioDuration, sr.MissingAudioDuration = a.frames, a.audioSeconds, a.missing
		sr.ServingTTFP = a.servingPositive.dist(ps, 1)
		sr.AudioRTF, sr.AudioDurations = a.rtf.dist(ps, 1), a.durations.dist(ps, 1)
	case StageStream:
		sr.TTFC, sr.TPOP, sr.ICL = a.servingReported.dist(ps, 1), a.tpop.dist(ps, 1), a.icl.dist(ps, 1)
	}
	return sr
}

// addIf adds the row's value of key when the row reported it (and, with positive, when
// it is above 0).
func addIf(s series, values map[string]float64, key string, positive bool) {
	if v, ok := values[key]; ok && (!positive || v > 0) {
		s.add(v)
	}
}

// addGaps adds a row's list of gaps, or its single mean (meanKey) when the server sent
// no list.
func addGaps(s series, list []float64, values map[string]float64, meanKey string) {
	if list != nil {
		for _, v := range list {
			s.add(v)
		}
		return
	}
	addIf(s, values, meanKey, false)
}

var stageKindNames = map[StageKind]string{
	StageVideo: "video", StageImage: "image", StageText: "text",
	StageAudio: "audio", StageStream: "stream", StageOther: "other",
}

// String is the kind's name, as saved in the result file.
func (k StageKind) String() string { return stageKindNames[k] }
