package record

import "github.com/omnik-dev/omnik/modules/omni/chunk"

// StageKind is what a stage outputs, inferred from its output types as upstream does (no
// stage descriptor exists): it decides which rows the Stage block prints for it.
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

var stageKindNames = map[StageKind]string{
	StageVideo: "video", StageImage: "image", StageText: "text",
	StageAudio: "audio", StageStream: "stream", StageOther: "other",
}

// String is the kind's name, as saved in the result file.
func (k StageKind) String() string { return stageKindNames[k] }

// KindOf applies omni-metrics.md §6.3's flags to a final output type and a unit type.
func KindOf(final, unit string) StageKind {
	switch {
	case final == "video" || final == "videos" || unit == "video":
		return StageVideo
	case final == "image" || final == "images" || unit == "image":
		return StageImage
	case final == "text" || unit == "text":
		return StageText
	case final == "audio" || unit == "audio":
		return StageAudio
	case unit == "stream":
		return StageStream
	}
	return StageOther
}

// kindOf is the kind of one stage row.
func kindOf(s chunk.Stage) StageKind { return KindOf(s.FinalOutputType, s.OutputUnitType) }

// StageMeasure is one per-stage distribution: the stage Trend metric of that name
// (tagged stage and stage_id) and the Stage block's list are both filled from Each, with
// the reference's rules (§6.3), so a threshold on `stage_ttft{stage:thinker}` reads the
// printed TTFT rows of Stage 0 (thinker).
type StageMeasure struct {
	Name string // the Trend metric: "stage_ttft"
	Time bool   // values are milliseconds; else unitless
	// Each adds one row's values, in the metric's unit.
	Each func(s chunk.Stage, add func(float64))
}

// Built once: Each runs per stage row of every record.
var (
	servingPositive = stageValue("serving_time_to_first_output_ms", true)
	servingAll      = stageValue("serving_time_to_first_output_ms", false)
	tpop            = stageValue("time_per_output_unit_ms", false)
)

// StageMeasures are every per-stage distribution (docs/metrics.md).
var StageMeasures = []StageMeasure{
	{"stage_gen_time", true, stageValue("stage_gen_time_ms", false)},
	{"stage_postprocess", true, stageValue("postprocess_time_ms", false)},
	// An internal stream's time to first chunk keeps its zeros (TTFC); the text and audio
	// stages' Serving TTFT and TTFP take values above 0.
	{"stage_serving_ttfo", true, func(s chunk.Stage, add func(float64)) {
		if kindOf(s) == StageStream {
			servingAll(s, add)
		} else {
			servingPositive(s, add)
		}
	}},
	{"stage_ttft", true, stageValue("vllm_ttft_ms", true)},
	{"stage_tpot", true, stageValue("vllm_tpot_ms", true)},
	{"stage_itl", true, stageGaps("vllm_itls_ms", "vllm_itl_ms")},
	// Time per output chunk needs more than one chunk.
	{"stage_tpop", true, func(s chunk.Stage, add func(float64)) {
		if s.Values["output_unit_count"] > 1 {
			tpop(s, add)
		}
	}},
	{"stage_icl", true, stageGaps("inter_output_latencies_ms", "inter_output_latency_ms")},
	// Sent by #3628 servers only; omnik never computes it (§7.3).
	{"stage_audio_rtf", false, stageValue("audio_rtf", true)},
	{"stage_audio_duration", true, func(s chunk.Stage, add func(float64)) {
		if v, ok := s.Values["audio_duration_s"]; ok && v > 0 {
			add(v * 1000)
		}
	}},
}

// StageMeasureNamed returns the stage measure of that name; it panics on a name not in
// StageMeasures, a programming error.
func StageMeasureNamed(name string) StageMeasure {
	for _, m := range StageMeasures {
		if m.Name == name {
			return m
		}
	}
	panic("record: no stage measure " + name)
}

// stageValue adds the row's value of key when the row reported it (and, with positive,
// when it is above 0).
func stageValue(key string, positive bool) func(chunk.Stage, func(float64)) {
	return func(s chunk.Stage, add func(float64)) {
		if v, ok := s.Values[key]; ok && (!positive || v > 0) {
			add(v)
		}
	}
}

// stageGaps adds a row's list of gaps, or its single mean when the server sent no list.
func stageGaps(list, mean string) func(chunk.Stage, func(float64)) {
	return func(s chunk.Stage, add func(float64)) {
		if l, ok := s.Lists[list]; ok {
			for _, v := range l {
				add(v)
			}
			return
		}
		stageValue(mean, false)(s, add)
	}
}
