package record

import "time"

// Modalities, as the `modality` tag spells them.
const (
	ModalityText  = "text"
	ModalityAudio = "audio"
	ModalityImage = "image"
	ModalityVideo = "video"
)

// Measure is one per-request distribution of a successful request: the omni Trend metric
// of that name and, where vllm bench serve prints one, the list behind a Serving-block
// row are both filled from Each, so a threshold and the printed statistic read the same
// values. A request adds a value only when it produced the modality: never a filler 0.
type Measure struct {
	Name     string // the Trend metric: "ttft"
	Modality string // the modality tag of its samples; "" for none
	Time     bool   // values are milliseconds; else unitless
	// Each adds the request's values, in the metric's unit.
	Each func(r *Record, add func(float64))
}

// Measures are every per-request distribution of the omni module (docs/metrics.md).
var Measures = []Measure{
	{"e2el", "", true, func(r *Record, add func(float64)) { add(Millis(E2EL(r))) }},
	{"e2el_intended", "", true, func(r *Record, add func(float64)) {
		if !r.IntendedStart.IsZero() {
			add(Millis(E2ELFromIntended(r)))
		}
	}},
	{"request_sent", "", true, func(r *Record, add func(float64)) {
		if r.Sent > 0 {
			add(Millis(r.Sent))
		}
	}},
	{"request_connecting", "", true, func(r *Record, add func(float64)) {
		if r.Connect > 0 {
			add(Millis(r.Connect))
		}
	}},
	{"ttfc", "", true, addDuration(TTFC)},
	{"ttfc_intended", "", true, func(r *Record, add func(float64)) {
		if v, ok := TTFC(r); ok && !r.IntendedStart.IsZero() {
			add(Millis(v + r.Start.Sub(r.IntendedStart)))
		}
	}},
	{"ttft", ModalityText, true, addDuration(TTFT)},
	{"tpot", ModalityText, true, addDuration(TPOT)},
	{"itl", ModalityText, true, func(r *Record, add func(float64)) {
		for _, v := range ITL(r) {
			add(Millis(v))
		}
	}},
	{"audio_ttfp", ModalityAudio, true, addDuration(AudioTTFP)},
	{"audio_rtf", ModalityAudio, false, addFloat(AudioRTF)},
	{"audio_duration", ModalityAudio, true, func(r *Record, add func(float64)) {
		if len(r.AudioChunks) > 0 {
			add(r.Audio.Seconds * 1000)
		}
	}},
	{"audio_underrun", ModalityAudio, true, func(r *Record, add func(float64)) {
		if v, ok := AudioUnderrun(r); ok {
			add(v * 1000)
		}
	}},
	{"utterance_ttfp", ModalityAudio, true, func(r *Record, add func(float64)) {
		for _, u := range r.Utterances {
			if v, ok := u.TTFP(); ok {
				add(Millis(v))
			}
		}
	}},
	{"utterance_rtf", ModalityAudio, false, func(r *Record, add func(float64)) {
		for _, u := range r.Utterances {
			if v, ok := u.RTF(); ok {
				add(v)
			}
		}
	}},
	{"image_generation", ModalityImage, true, addFloat(ImageGenerationMS)},
	{"denoise_step", ModalityImage, true, addFloat(DenoiseStepMS)},
	{"video_rtf", ModalityVideo, false, addFloat(VideoRTF)},
	{"video_generation", ModalityVideo, true, func(r *Record, add func(float64)) {
		if r.Endpoint == EndpointVideos && r.Video.GenerationMS > 0 {
			add(r.Video.GenerationMS)
		}
	}},
	{"video_duration", ModalityVideo, true, func(r *Record, add func(float64)) {
		if r.Endpoint == EndpointVideos && r.Video.Seconds > 0 {
			add(r.Video.Seconds * 1000)
		}
	}},
	{"video_poll_window", ModalityVideo, true, addDuration(VideoPollWindow)},
}

// MeasureNamed returns the measure of that name; it panics on a name not in Measures, a
// programming error.
func MeasureNamed(name string) Measure {
	for _, m := range Measures {
		if m.Name == name {
			return m
		}
	}
	panic("record: no measure " + name)
}

func addDuration(f func(*Record) (time.Duration, bool)) func(*Record, func(float64)) {
	return func(r *Record, add func(float64)) {
		if v, ok := f(r); ok {
			add(Millis(v))
		}
	}
}

func addFloat(f func(*Record) (float64, bool)) func(*Record, func(float64)) {
	return func(r *Record, add func(float64)) {
		if v, ok := f(r); ok {
			add(v)
		}
	}
}
