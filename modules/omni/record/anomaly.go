package record

import "fmt"

// Anomaly kinds: what a request that still succeeded got wrong, or what omnik cut from
// it. A hostile or buggy server must not look healthy, nor fail requests whose timings
// are sound.
const (
	// AnomalyUsage: the server's completion tokens are more than the bytes received.
	AnomalyUsage = "usage_exceeds_received"
	// AnomalyModality: a chunk of a modality omnik does not know; its content is not
	// counted as text.
	AnomalyModality = "unknown_modality"
	// AnomalyTextCut: the text kept for the script (res.text, sentence texts) reached
	// Limits.Text.
	AnomalyTextCut = "text_truncated"
	// AnomalyPayloadCut: the audio or images kept for the script reached Limits.Kept.
	AnomalyPayloadCut = "payload_truncated"
	// AnomalyStagesCut: a response named more stages or stage durations than MaxStages,
	// or more stage list entries than MaxStageEntries; the rest were not kept.
	AnomalyStagesCut = "stages_truncated"
	// AnomalyStageValue: a stage reported a number no clock or count can have; it was
	// dropped.
	AnomalyStageValue = "stage_value_out_of_range"
	// AnomalyUsageRange: a token count past MaxTokens; it was counted as MaxTokens.
	AnomalyUsageRange = "usage_out_of_range"
	// AnomalyImageSize: an image header claimed a side past MaxImageSide; the image
	// counts without its size.
	AnomalyImageSize = "image_size_out_of_range"
)

// Anomaly is one kind of anomaly in a request: how often it happened and the first
// occurrence, said.
type Anomaly struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Count   int    `json:"count"`
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
	b.r.Anomalies = append(b.r.Anomalies, Anomaly{Kind: kind, Message: b.said(msg), Count: 1})
}

// flagUsage flags the completion tokens of a successful response beyond its bytes
// received: a token takes at least a byte on the wire, so the count claims output that
// never arrived. (record.ITL credits a chunk at most its bytes, whatever the count says.)
func (b *Builder) flagUsage() {
	// A failed response was cut: its count may be of output that was still to come.
	if n, got := b.r.Usage.Completion, b.r.BytesReceived; b.r.Err == nil && got > 0 && int64(n) > got {
		b.Flag(AnomalyUsage, fmt.Sprintf("usage.completion_tokens %d is more than the %d bytes received", n, got))
	}
}
