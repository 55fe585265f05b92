package record

import "fmt"

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
)

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
