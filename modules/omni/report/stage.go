package report

import (
	"github.com/omnik-dev/omnik/modules/omni/chunk"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// StageResult aggregates one stage over the successful requests that reported it.
// Distributions are in ms except AudioRTF (unitless) and AudioDurations (s); each comes
// from the record.StageMeasures of its name, as the stage metrics do.
type StageResult struct {
	ID   int
	Name string
	Kind record.StageKind

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

// stageAccumulator folds one stage's rows (§6.3). The kind is known only once a row
// names the unit type, so every row fills every stage measure's list; result reports
// the lists of the kind.
type stageAccumulator struct {
	id                int
	rows              int
	name, final, unit string // the first row's name and final type; the first non-empty unit type

	lists                      map[string]series // by stage measure
	anyPost                    bool
	tokens, unitCount, missing int
	frames                     int64
	audioSeconds               float64
}

func newStageAccumulator(id, budget int) *stageAccumulator {
	s := &stageAccumulator{id: id, lists: make(map[string]series, len(record.StageMeasures))}
	for _, m := range record.StageMeasures {
		s.lists[m.Name] = newSeries(budget)
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
	for _, m := range record.StageMeasures {
		m.Each(s, a.lists[m.Name].add)
	}
	v := s.Values
	a.anyPost = a.anyPost || v["postprocess_time_ms"] > 0
	a.unitCount += int(v["output_unit_count"])
	a.tokens += int(v["num_tokens_out"])
	frames := int64(v["audio_frames"])
	if frames <= 0 && s.OutputUnitType == "audio" {
		frames = int64(v["output_unit_count"])
	}
	a.frames += frames
	if d := v["audio_duration_s"]; d > 0 {
		a.audioSeconds += d
	} else {
		a.missing++
	}
}

// result reports the lists and totals of the stage's kind; the others stay empty.
func (a *stageAccumulator) result(ps []float64) StageResult {
	list := func(name string, div float64) Dist { return a.lists[name].dist(ps, div) }
	sr := StageResult{ID: a.id, Name: chunk.Stage{ID: a.id, Name: a.name}.DisplayName(), GenTime: list("stage_gen_time", 1)}
	unit := a.unit
	if unit == "" {
		unit = "other"
	}
	sr.Kind = record.KindOf(a.final, unit)
	empty := newSeries(0).dist(ps, 1)
	if a.anyPost {
		sr.Postprocess = list("stage_postprocess", 1)
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
	case record.StageText:
		sr.Tokens = a.tokens
		sr.ServingTTFT = list("stage_serving_ttfo", 1)
		sr.TTFT, sr.TPOT, sr.ITL = list("stage_ttft", 1), list("stage_tpot", 1), list("stage_itl", 1)
	case record.StageAudio:
		sr.AudioFrames, sr.AudioDuration, sr.MissingAudioDuration = a.frames, a.audioSeconds, a.missing
		sr.ServingTTFP = list("stage_serving_ttfo", 1)
		sr.AudioRTF, sr.AudioDurations = list("stage_audio_rtf", 1), list("stage_audio_duration", 1000)
	case record.StageStream:
		sr.TTFC, sr.TPOP, sr.ICL = list("stage_serving_ttfo", 1), list("stage_tpop", 1), list("stage_icl", 1)
	}
	return sr
}

func (a *stageAccumulator) clone() *stageAccumulator {
	c := *a
	c.lists = make(map[string]series, len(a.lists))
	for name, l := range a.lists {
		c.lists[name] = l.clone()
	}
	return &c
}
