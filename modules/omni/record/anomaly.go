package record

import (
	"fmt"
	"maps"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
)

// Anomaly kinds: what a request that still succeeded got wrong, or what omnik cut from
// it. A hostile or buggy server must not look healthy, nor fail requests whose timings
// are sound.
const (
	// AnomalyUsage: the server's token counts claim more than the bytes received can hold.
	AnomalyUsage = "usage_exceeds_received"
	// AnomalyModality: a chunk of a modality omnik does not know; its content is not
	// counted as text.
	AnomalyModality = "unknown_modality"
	// AnomalyTextCut: the text kept for the script (res.text) reached Limits.Text.
	AnomalyTextCut = "text_truncated"
	// AnomalyPayloadCut: the audio or images kept for the script reached Limits.Kept.
	AnomalyPayloadCut = "payload_truncated"
	// AnomalyStagesCut: a response named more stages (or stage durations) than
	// MaxStages; the rest were not kept.
	AnomalyStagesCut = "stages_truncated"
	// AnomalyStageValue: a stage reported a value no clock or count can have (negative,
	// or past MaxStageValue); it was dropped.
	AnomalyStageValue = "stage_value_out_of_range"
	// AnomalyUsageRange: a token count past MaxTokens; it was counted as MaxTokens.
	AnomalyUsageRange = "usage_out_of_range"
	// AnomalyImageSize: an image header claimed a side past MaxImageSide; the image
	// counts without its size.
	AnomalyImageSize = "image_size_out_of_range"
)

// MaxImageSide bounds an image's width and height as its header claims them, so the
// pixels of a run cannot wrap.
const MaxImageSide = 1 << 16

// MaxStageValue bounds a stage's numbers (31 years in ms): past it a value is a broken
// server's, and sums of such would print +Inf and fail the JSON outputs.
const MaxStageValue = 1e12

// MaxTokens bounds a token count: no model emits more in one response, and sums of
// counts past it could wrap the run's totals.
const MaxTokens = 1<<31 - 1

// MaxStages bounds the stages, and the stage_durations keys, one response may add: a
// pipeline has a handful, and a server inventing ids must not grow a record.
const MaxStages = 64

// mergeBounded copies src into dst, adding at most MaxStages keys in all.
func mergeBounded[V any](b *Builder, dst, src map[string]V) {
	for k, v := range src {
		if _, ok := dst[k]; !ok && len(dst) >= MaxStages {
			b.Flag(AnomalyStagesCut, fmt.Sprintf("more than %d stages or stage durations in one response; the rest were not kept", MaxStages))
			continue
		}
		dst[k] = v
	}
}

// Anomaly is one kind of anomaly in a request: how often it happened and the first
// occurrence, said.
type Anomaly struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Count   int    `json:"count"`
}

// Limits bound what one response may make the builder hold, so a server's stream can
// never size the client's memory. Zero fields are unlimited.
type Limits struct {
	Text   int   // text bytes kept for the script; the rest is measured, not kept
	Kept   int64 // audio sample and image bytes kept for the script
	Chunks int   // chunks of all modalities; one more fails the request
}

// maxAnomalyKinds bounds a record's anomalies: the kinds are this package's, but a
// record file's are not.
const maxAnomalyKinds = 16

// Flag records an anomaly of kind; the first message of each kind is kept.
func (b *Builder) Flag(kind, msg string) {
	for i := range b.r.Anomalies {
		if a := &b.r.Anomalies[i]; a.Kind == kind {
			a.Count++
			return
		}
	}
	b.r.Anomalies = append(b.r.Anomalies, Anomaly{Kind: kind, Message: msg, Count: 1})
}

// SetLimits bounds what the builder holds for this response.
func (b *Builder) SetLimits(l Limits) { b.limits = l }

// chunkRoom reports whether one more chunk (or sentence) fits under Limits.Chunks,
// failing the request when it does not: the reader then stops.
func (b *Builder) chunkRoom() bool {
	l := b.limits.Chunks
	if l <= 0 || len(b.r.TextChunks)+len(b.r.AudioChunks)+len(b.r.ImageTimes)+len(b.r.Utterances) < l {
		return true
	}
	b.Fail(KindOversized, fmt.Sprintf("more than %d chunks in one response (options.omni.maxChunks)", l))
	return false
}

// keep appends p to kept under Limits.Kept, counting what did not fit.
func (b *Builder) keep(kept int64, p int) bool {
	if l := b.limits.Kept; l > 0 && kept+int64(p) > l {
		b.cutPayload += int64(p)
		return false
	}
	return true
}

// flagUsage flags text chunks whose completion_tokens rose by more than their bytes: a
// token is at least a byte of text, so the count claims output that never arrived.
// record.ITL credits such chunks at most their bytes.
func (b *Builder) flagUsage() {
	prev := int32(0)
	for _, c := range b.r.TextChunks {
		if c.Tokens < 0 {
			return
		}
		if rise := int64(c.Tokens) - int64(prev); rise > int64(max(c.Bytes, 1)) {
			b.Flag(AnomalyUsage, fmt.Sprintf("usage.completion_tokens rose by %d on a text chunk of %d bytes", rise, c.Bytes))
		}
		prev = c.Tokens
	}
}

// saneStage is s without the values a stage cannot have (negative, NaN or past
// MaxStageValue), copied only when it has some: the decoder may share its maps.
func saneStage(s chunk.Stage) (chunk.Stage, bool) {
	bad := func(k string, v float64) bool { return k != "stage_id" && !(v >= 0 && v <= MaxStageValue) }
	dirty := false
	for k, v := range s.Values {
		dirty = dirty || bad(k, v)
	}
	for k, l := range s.Lists {
		for _, v := range l {
			dirty = dirty || bad(k, v)
		}
	}
	if !dirty {
		return s, true
	}
	values := make(map[string]float64, len(s.Values))
	for k, v := range s.Values {
		if !bad(k, v) {
			values[k] = v
		}
	}
	lists := make(map[string][]float64, len(s.Lists))
	for k, l := range s.Lists {
		kept := make([]float64, 0, len(l))
		for _, v := range l {
			if !bad(k, v) {
				kept = append(kept, v)
			}
		}
		lists[k] = kept
	}
	s.Values, s.Lists = values, lists
	return s, false
}

// saneStages is stages with saneStage applied to each, flagging the ones it changed; the
// map is copied only then, as it is the decoder's.
func (b *Builder) saneStages(stages map[string]chunk.Stage) map[string]chunk.Stage {
	out, copied := stages, false
	for id, st := range stages {
		sane, ok := saneStage(st)
		if ok {
			continue
		}
		b.Flag(AnomalyStageValue, fmt.Sprintf("stage %s reported a negative value or one past %g; dropped", id, MaxStageValue))
		if !copied {
			out, copied = maps.Clone(stages), true
		}
		out[id] = sane
	}
	return out
}

// tokens is a count bounded by MaxTokens, flagged when it was not.
func (b *Builder) tokens(name string, n int) int {
	if n <= MaxTokens {
		return n
	}
	b.Flag(AnomalyUsageRange, fmt.Sprintf("%s %d is past any model's output; counted as %d", name, n, MaxTokens))
	return MaxTokens
}
