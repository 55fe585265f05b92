package record

import (
	"fmt"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
)

// Builder fills a Record as a response is read. It is used by one reader goroutine.
type Builder struct {
	r       Record
	text    []byte
	secrets []string // credential values the request sent
	// tokensOut is the largest metrics.num_tokens_out the server reported.
	tokensOut int
	limits    Limits
	// cutText and cutPayload count the bytes received but not kept under limits.
	cutText, cutPayload int64
	keptImages          int64
	sentenceBytes       int // sentence texts kept, counted against Limits.Text
}

// NewBuilder starts a record for a request written at start.
func NewBuilder(endpoint string, start time.Time) *Builder {
	return &Builder{r: Record{Endpoint: endpoint, Start: start}}
}

// SetIntendedStart records when the executor meant to start the request.
func (b *Builder) SetIntendedStart(t time.Time) { b.r.IntendedStart = t }

// SetTags attaches the request's tags.
func (b *Builder) SetTags(tags map[string]string) { b.r.Tags = tags }

// SetStatus records the HTTP status.
func (b *Builder) SetStatus(code int) { b.r.Status = code }

// SetBytes records the bytes the request wrote and read: HTTP body bytes, or the payloads
// of websocket messages.
func (b *Builder) SetBytes(sent, received int64) { b.r.BytesSent, b.r.BytesReceived = sent, received }

// SetRequestID records the response or request id; the first one seen is kept.
func (b *Builder) SetRequestID(id string) {
	if b.r.RequestID == "" {
		b.r.RequestID = id
	}
}

// OnTextChunk records a text chunk arriving at t. Empty text (role chunks) adds no chunk
// but its usage still counts.
func (b *Builder) OnTextChunk(t time.Time, text []byte, usage *chunk.Usage) {
	tokens := int32(-1)
	if usage != nil {
		b.OnUsage(*usage)
		tokens = int32(min(max(usage.CompletionTokens, 0), MaxTokens))
	}
	if len(text) == 0 || !b.chunkRoom() {
		return
	}
	b.text = append(b.text, b.keepText(len(b.text)+b.sentenceBytes, text)...)
	b.r.TextChunks = append(b.r.TextChunks, TextChunk{At: t.Sub(b.r.Start), Bytes: int32(len(text)), Tokens: tokens})
}

// OnUsage takes a usage report. Counts only grow: vLLM-Omni audio chunks carry
// completion_tokens 0 while text is still counting, so a report never lowers a count.
func (b *Builder) OnUsage(u chunk.Usage) {
	us := &b.r.Usage
	us.Prompt = max(us.Prompt, b.tokens("usage.prompt_tokens", max(u.PromptTokens, u.InputTokens)))
	us.Completion = max(us.Completion, b.tokens("usage.completion_tokens", max(u.CompletionTokens, u.OutputTokens)))
	us.Total = max(us.Total, b.tokens("usage.total_tokens", u.TotalTokens))
}

// OnAudioChunk records audio arriving at t. Empty pieces (an empty talker segment) are
// ignored so they do not set the time to first packet.
func (b *Builder) OnAudioChunk(t time.Time, format string, p chunk.AudioPiece) {
	if p.Bytes == 0 || !b.chunkRoom() {
		return
	}
	a := &b.r.Audio
	if len(b.r.AudioChunks) == 0 {
		a.Format, a.SampleRate, a.Channels, a.FrameBytes = format, p.Format.SampleRate, p.Format.Channels, p.Format.FrameSize()
	} else if a.SampleRate != p.Format.SampleRate || a.Channels != p.Format.Channels {
		a.Mixed = true
	}
	a.Frames += p.Frames
	a.Bytes += p.Bytes
	a.Seconds += p.Seconds()
	if len(p.Samples) > 0 && b.keep(int64(len(a.Samples)), len(p.Samples)) {
		a.Samples = append(a.Samples, p.Samples...)
	}
	at := t.Sub(b.r.Start)
	b.r.AudioChunks = append(b.r.AudioChunks, AudioChunk{At: at, Bytes: p.Bytes, Frames: p.Frames})
	if n := len(b.r.Utterances); n > 0 && b.r.Utterances[n-1].Done == 0 {
		u := &b.r.Utterances[n-1]
		if u.FirstAudio == 0 {
			u.FirstAudio = at
		}
		u.Frames += p.Frames
		u.Seconds += p.Seconds()
	}
}

// OnTextSent records an input.text piece sent at t.
func (b *Builder) OnTextSent(t time.Time) { b.r.TextSent = append(b.r.TextSent, t.Sub(b.r.Start)) }

// OnUtteranceStart opens a sentence on its audio.start, arrived at t.
func (b *Builder) OnUtteranceStart(t time.Time, index int, text string) {
	if !b.chunkRoom() {
		return
	}
	if kept := b.keepText(len(b.text)+b.sentenceBytes, []byte(text)); len(kept) < len(text) {
		// Not kept at all: a cut sentence would match the text sent in the wrong place
		// (markReady).
		b.cutText += int64(len(kept))
		text = ""
	}
	b.sentenceBytes += len(text)
	b.r.Utterances = append(b.r.Utterances, Utterance{Index: index, Text: text, Start: t.Sub(b.r.Start)})
}

// OnUtteranceDone closes the open sentence on its audio.done, arrived at t.
func (b *Builder) OnUtteranceDone(t time.Time) {
	if n := len(b.r.Utterances); n > 0 {
		b.r.Utterances[n-1].Done = t.Sub(b.r.Start)
	}
}

// OnImage records an image arriving at t; w and h are 0 when its size could not be
// read. data is kept only when non-nil.
func (b *Builder) OnImage(t time.Time, w, h int, data []byte) {
	if !b.chunkRoom() {
		return
	}
	if w > MaxImageSide || h > MaxImageSide {
		b.Flag(AnomalyImageSize, fmt.Sprintf("an image header claimed %d×%d; counted without its size", w, h))
		w, h = 0, 0
	}
	im := &b.r.Images
	if im.Count == 0 {
		im.Width, im.Height = w, h
	}
	im.Count++
	im.Pixels += int64(w) * int64(h)
	if data != nil && b.keep(b.keptImages, len(data)) {
		im.Data = append(im.Data, data)
		b.keptImages += int64(len(data))
	}
	b.r.ImageTimes = append(b.r.ImageTimes, t.Sub(b.r.Start))
}

// OnServerStats takes stage_durations and peak_memory_mb, wherever the server put them
// (top level, metrics, usage or a data entry, of any endpoint); later durations replace
// earlier ones, and the peak is the largest reported.
func (b *Builder) OnServerStats(durations chunk.Durations, peakMB float64) {
	im := &b.r.Images
	if d, ok := saneDurations(durations); !ok {
		b.Flag(AnomalyStageValue, "stage_durations held a negative duration or one past MaxStageValue; dropped")
		durations = d
	}
	if !(peakMB >= 0 && peakMB <= MaxStageValue) {
		b.Flag(AnomalyStageValue, fmt.Sprintf("peak_memory_mb %g; dropped", peakMB))
		peakMB = 0
	}
	b.mergeDurations(durations)
	im.PeakMemoryMB = max(im.PeakMemoryMB, peakMB)
}

// OnChunkStats takes what a chunk, event or body says of the server's work: its metrics
// object, and the stage_durations and peak memory outside it.
func (b *Builder) OnChunkStats(ch *chunk.Chunk) {
	b.OnStageMetrics(ch.Metrics)
	b.OnServerStats(ch.ServerStats())
}

// OnStageMetrics merges a chunk's metrics object.
func (b *Builder) OnStageMetrics(m *chunk.Metrics) {
	if m == nil {
		return
	}
	b.tokensOut = max(b.tokensOut, b.tokens("metrics.num_tokens_out", m.NumTokensOut))
	if len(m.StageMetrics) > 0 && b.r.Stages == nil {
		b.r.Stages = make(map[string]chunk.Stage, len(m.StageMetrics))
	}
	mergeBounded(b, b.r.Stages, b.withinEntries(m.StageMetrics))
	b.OnServerStats(m.StageDurations, float64(m.PeakMemoryMB))
	b.onEdges(m.StreamEdges)
}

// Fail marks the request failed. The first failure is kept: later ones are its echoes.
func (b *Builder) Fail(kind, msg string) {
	if b.r.Err == nil {
		// Go's errors name the URL, query and user info included, and a server may echo
		// the request's headers: no credential may reach a result file or a report.
		b.r.Err = &Error{Kind: kind, Message: b.said(msg)}
	}
}

// SetWire sets when the request was written in full and how long its new connection
// took to open, both zero when unknown or (connect) reused.
func (b *Builder) SetWire(sent, connect time.Duration) { b.r.Sent, b.r.Connect = sent, connect }

// Redact names the credential values the request sent (httpdebug.HeaderSecrets): no
// failure message keeps them.
func (b *Builder) Redact(secrets []string) { b.secrets = append(b.secrets, secrets...) }

// Failed reports whether Fail was called.
func (b *Builder) Failed() bool { return b.r.Err != nil }

// Finish closes the record with the end time (the last message before [DONE], or the end
// of the body) and settles the output token count.
func (b *Builder) Finish(t time.Time) *Record {
	r := &b.r
	r.End = t.Sub(r.Start)
	r.Text = string(b.text)
	b.text = nil
	if b.cutText > 0 {
		b.Flag(AnomalyTextCut, fmt.Sprintf("the text kept (res.text, sentence texts) stopped at %d bytes; %d more were received and measured, not kept (options.omni.maxTextBytes)", len(r.Text)+b.sentenceBytes, b.cutText))
	}
	if b.cutPayload > 0 {
		b.Flag(AnomalyPayloadCut, fmt.Sprintf("%d bytes of audio or images were received and measured, not kept (at most %d kept; options.omni.maxBodyBytes)", b.cutPayload, b.limits.Kept))
	}
	b.flagUsage()
	b.dropBadValues()
	if a := &r.Audio; !a.Mixed && a.SampleRate > 0 {
		// One format throughout: frames/rate is exact where a sum of pieces drifts.
		a.Seconds = float64(a.Frames) / float64(a.SampleRate)
	}
	us := &r.Usage
	us.Completion = max(us.Completion, b.tokensOut)
	if us.Completion == 0 && len(r.TextChunks) > 0 {
		us.Completion, us.Estimated = len(r.TextChunks), true
	}
	out := *r
	return &out
}

// Start is the request's start time.
func (b *Builder) Start() time.Time { return b.r.Start }
