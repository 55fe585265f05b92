package report

import (
	"time"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

func ms(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

// req builds a successful chat record on the run's timeline from options.
func req(opts ...func(*record.Record)) *record.Record {
	r := &record.Record{Endpoint: record.EndpointChat, Status: 200, Start: time.Unix(1_760_000_000, 0)}
	for _, o := range opts {
		o(r)
	}
	return r
}

// at places the request: start offset and E2EL, in ms.
func at(startMS, e2elMS float64) func(*record.Record) {
	return func(r *record.Record) { r.Offset, r.End = ms(startMS), ms(e2elMS) }
}

// text adds text chunks without usage: the first at ttft, then one per gap (ms), so the
// ITL entries are the gaps; completion tokens are the chunks.
func text(ttftMS float64, gapsMS ...float64) func(*record.Record) {
	return func(r *record.Record) {
		t := ms(ttftMS)
		r.TextChunks = append(r.TextChunks, record.TextChunk{At: t, Bytes: 1, Tokens: -1})
		for _, g := range gapsMS {
			t += ms(g)
			r.TextChunks = append(r.TextChunks, record.TextChunk{At: t, Bytes: 1, Tokens: -1})
		}
		r.Usage.Completion = len(r.TextChunks)
	}
}

func tokens(in, out int) func(*record.Record) {
	return func(r *record.Record) { r.Usage.Prompt, r.Usage.Completion = in, out }
}

// chatAudio adds two chat audio chunks (first at ttfp, last at lastMS) totalling seconds
// and frames.
func chatAudio(ttfpMS, lastMS, seconds float64, frames int64) func(*record.Record) {
	return func(r *record.Record) {
		r.AudioChunks = []record.AudioChunk{{At: ms(ttfpMS), Bytes: frames, Frames: frames / 2}, {At: ms(lastMS), Bytes: frames, Frames: frames - frames/2}}
		r.Audio = record.Audio{Format: "wav", SampleRate: 24000, Channels: 1, FrameBytes: 2, Frames: frames, Bytes: 2 * frames, Seconds: seconds}
	}
}

// speech turns the record into a raw PCM speech stream (24 kHz mono) with chunks of
// bytes each arriving at the given offsets (ms): it has a continuity measurement.
func speech(bytes int64, atMS ...float64) func(*record.Record) {
	return func(r *record.Record) {
		r.Endpoint = record.EndpointSpeech
		a := record.Audio{Format: "pcm", SampleRate: 24000, Channels: 1, FrameBytes: 2}
		for _, t := range atMS {
			r.AudioChunks = append(r.AudioChunks, record.AudioChunk{At: ms(t), Bytes: bytes, Frames: bytes / 2})
			a.Bytes += bytes
			a.Frames += bytes / 2
		}
		a.Seconds = float64(a.Frames) / 24000
		r.Audio = a
	}
}

// image adds one image at imageMS with an image stage of the given generation time and
// denoise step latency.
func image(imageMS float64, pixels int64, genMS, denoiseMS float64) func(*record.Record) {
	return func(r *record.Record) {
		r.Endpoint = record.EndpointImages
		r.ImageTimes = []time.Duration{ms(imageMS)}
		r.Images = record.Images{Count: 1, Pixels: pixels}
		withStages(stage(3, "dit", "image", "image", map[string]float64{"output_unit_count": 1, "stage_gen_time_ms": genMS, "denoise_step_latency_ms": denoiseMS}, nil))(r)
	}
}

func failed(kind string) func(*record.Record) {
	return func(r *record.Record) { r.Err, r.Status = &record.Error{Kind: kind, Message: "HTTP 500"}, 500 }
}

func withStages(stages ...chunk.Stage) func(*record.Record) {
	return func(r *record.Record) {
		if r.Stages == nil {
			r.Stages = map[string]chunk.Stage{}
		}
		for i, s := range stages {
			// Map keys are the wire's stage ids; a second row of one id in a request would
			// be merged by the builder, so tests give each its own key.
			r.Stages[string(rune('a'+i))+"-"+s.DisplayName()] = s
		}
	}
}

// stage is one stage_metrics row: only the keys given are reported.
func stage(id int, name, final, unit string, values map[string]float64, lists map[string][]float64) chunk.Stage {
	v := map[string]float64{"stage_id": float64(id)}
	for k, x := range values {
		v[k] = x
	}
	return chunk.Stage{ID: id, Name: name, FinalOutputType: final, OutputUnitType: unit, Values: v, Lists: lists}
}

// aggregate folds records into one Accumulator.
func aggregate(recs []*record.Record, dur time.Duration, opts Options) *Result {
	a := NewAccumulator(opts)
	for _, r := range recs {
		a.Add(r)
	}
	return a.Result(dur)
}
