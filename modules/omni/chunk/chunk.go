// Package chunk decodes the JSON bodies and stream events of OpenAI and vLLM-Omni
// endpoints (chat, speech, images) into small structs. Large payloads (base64 audio and
// images) are not copied: they alias the input, so a Chunk is valid only while its input
// bytes are.
package chunk

import (
	"encoding/json"
	"errors"
	"fmt"
)

// ErrMalformed reports a body or event that is not the JSON expected.
var ErrMalformed = errors.New("chunk: malformed JSON")

// Chunk is one chat completion (chunk), speech event, image response or image edit event.
// Fields absent from the input stay zero.
type Chunk struct {
	ID       string   `json:"id"`
	Object   string   `json:"object"`
	Type     string   `json:"type"`     // speech.audio.delta, ar_delta, image, …
	Modality string   `json:"modality"` // vLLM-Omni: text, audio, image; "" on OpenAI chunks
	Choices  []Choice `json:"choices"`
	Usage    *Usage   `json:"usage"`
	Metrics  *Metrics `json:"metrics"`
	Error    *Error   `json:"error"`
	Detail   *Detail  `json:"detail"` // FastAPI error bodies
	// Message and Code are vLLM's ErrorResponse, sent as a whole 200 body or as a stream
	// event: {"object":"error","message":…,"type":…,"code":500}. Raw, as other objects may
	// use the names for something else.
	Message json.RawMessage `json:"message"`
	Code    json.RawMessage `json:"code"`

	Audio String `json:"audio"` // speech SSE delta
	// Delta is the image edit stream's ar_delta text, or the audio of the first speech SSE
	// builds, which used `delta` for what is now `audio`.
	Delta String `json:"delta"`

	Data           []Image   `json:"data"` // images responses and image edit `image` events
	StageDurations Durations `json:"stage_durations"`
	PeakMemoryMB   Number    `json:"peak_memory_mb"`

	scratch []byte // the input with large strings cut out, reused across Decode calls
	spans   []span
	stages  stageCache
	usages  usageBatch // where the fast path puts Usage
}

// Failure is the error the body or event carries: its `error` object, or vLLM's
// top-level ErrorResponse (object "error"); nil when it carries none.
func (c *Chunk) Failure() *Error {
	if c.Error != nil {
		return c.Error
	}
	if c.Object != "error" {
		return nil
	}
	msg := scalar(c.Message)
	if msg == "" {
		msg = "an error object without a message"
	}
	return &Error{Message: msg, Type: c.Type, Code: scalar(c.Code)}
}

// MessageText is the top-level message as text ("" when absent): an error event's
// message when it carries no error object.
func (c *Chunk) MessageText() string { return scalar(c.Message) }

// Choice is one entry of choices: a delta when streaming, a message otherwise.
type Choice struct {
	Index        int     `json:"index"`
	Delta        Message `json:"delta"`
	Message      Message `json:"message"`
	FinishReason string  `json:"finish_reason"`
}

// Message is a delta or a full message.
type Message struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
	Audio   *Audio  `json:"audio"` // OpenAI audio output
}

// Audio is OpenAI's audio output object.
type Audio struct {
	ID         string `json:"id"`
	Data       String `json:"data"` // base64 audio
	Transcript String `json:"transcript"`
}

// Usage holds token counts; chat uses the *_tokens names, speech the input/output ones.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
	InputTokens      int `json:"input_tokens"`
	OutputTokens     int `json:"output_tokens"`
	// PeakMemoryMB is where some servers report peak_memory_mb; upstream's benchmark
	// reads it there too.
	PeakMemoryMB Number `json:"peak_memory_mb"`
}

// Image is one entry of an images response's data.
type Image struct {
	B64JSON        String    `json:"b64_json"`
	URL            String    `json:"url"`
	StageDurations Durations `json:"stage_durations"`
	PeakMemoryMB   Number    `json:"peak_memory_mb"`
}

// Decode parses b into c, resetting c first. Byte fields alias b (or c's own scratch
// copy) when they hold no escapes: they are valid while b is and until the next Decode
// into c. Metrics.StageMetrics may be the map of the previous Decode into c when the
// server repeated it byte for byte: treat it as read-only. A copy of c shares its
// buffers: decode into one copy only.
func Decode(b []byte, c *Chunk) error {
	in, repeated := c.stages.skip(b)
	if err := c.decodeLarge(in); err != nil {
		return err
	}
	switch {
	case repeated && c.Metrics != nil:
		c.Metrics.StageMetrics = c.stages.m
	case !repeated:
		var m map[string]Stage
		if c.Metrics != nil {
			m = c.Metrics.StageMetrics
		}
		c.stages.remember(b, m)
	}
	return nil
}

// decodeLarge decodes b: the common shapes by hand, the rest with encoding/json.
func (c *Chunk) decodeLarge(b []byte) error {
	if c.fast(b) {
		return nil
	}
	return c.decodeReflect(b)
}

// decodeReflect decodes b with encoding/json, cutting large strings out first.
func (c *Chunk) decodeReflect(b []byte) error {
	if len(b) >= largeString {
		cut, spans := cutLarge(b, c.scratch, c.spans)
		c.scratch, c.spans = cut, spans
		if len(spans) > 0 {
			if err := c.decode(cut); err == nil && c.restore(cut, spans) {
				return nil
			}
			// A large string sat in a field that is not cut-aware (or the JSON is bad):
			// take the slow path, which also reports errors with the original offsets.
		}
	}
	if err := c.decode(b); err != nil {
		return malformed(err)
	}
	return nil
}

func (c *Chunk) decode(b []byte) error {
	c.reset()
	return json.Unmarshal(b, c)
}

// reset zeroes c's fields but keeps its buffers. It keeps the choices' backing array
// across chunks (most have one choice) and clears its elements, which encoding/json
// would decode into as they are.
func (c *Chunk) reset() {
	choices := c.Choices[:cap(c.Choices)]
	clear(choices)
	*c = Chunk{Choices: choices[:0], scratch: c.scratch, spans: c.spans, stages: c.stages, usages: c.usages}
}

func malformed(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%w at byte %d: %v", ErrMalformed, se.Offset, se)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("%w at byte %d: field %q is %s, want %s", ErrMalformed, te.Offset, te.Field, te.Value, te.Type)
	}
	return fmt.Errorf("%w: %v", ErrMalformed, err)
}
