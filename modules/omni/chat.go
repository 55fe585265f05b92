package omni

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
	"github.com/omnik-dev/omnik/modules/omni/record"
	"github.com/omnik-dev/omnik/modules/omni/sse"
	"github.com/omnik-dev/omnik/modules/omni/wav"
)

// maxEventSize bounds one SSE event: a few seconds of base64 WAV fit many times over.
const maxEventSize = 16 << 20

// call is one request as the JS binding hands it to Go.
type call struct {
	body          map[string]any
	headers       map[string]string
	timeout       time.Duration
	intendedStart time.Time
	keepAudio     bool
	sampleRate    int
	// onEvent, when set, is told about every parsed event (on the reader goroutine).
	onEvent func(ev Event)
}

// Event is what onEvent receives: the Go-side arrival time and what the event carried.
type Event struct {
	Time     time.Time
	Type     string // text, audio, image, usage, error
	Text     string
	Bytes    int
	Modality string
}

// chatDefaults fills the fields omnik needs for its measurements unless the script set them.
func chatDefaults(body map[string]any, model string) {
	if _, ok := body["model"]; !ok && model != "" {
		body["model"] = model
	}
	if _, ok := body["stream"]; !ok {
		body["stream"] = true
	}
	if body["stream"] == true {
		if _, ok := body["stream_options"]; !ok {
			body["stream_options"] = map[string]any{"include_usage": true, "continuous_usage_stats": true}
		}
	}
	if _, ok := body["return_stage_metrics"]; !ok {
		body["return_stage_metrics"] = true
	}
}

// chat posts a chat completion and reads it into a record. It never returns an error:
// failures are data in the record.
func (c *client) chat(ctx context.Context, cl call) *record.Record {
	chatDefaults(cl.body, c.model(ctx))
	payload, err := json.Marshal(cl.body)
	start := time.Now()
	b := record.NewBuilder(record.EndpointChat, start)
	b.SetIntendedStart(cl.intendedStart)
	if err != nil {
		b.Fail(record.KindMalformed, "request body is not JSON: "+err.Error())
		return b.Finish(time.Now())
	}
	resp, reqCtx, done := c.post(ctx, "/v1/chat/completions", "application/json", bytes.NewReader(payload), cl, b)
	defer done()
	if resp == nil {
		return b.Finish(time.Now())
	}
	defer resp.Body.Close()
	spec := chunk.AudioSpec{Raw: wav.PCM16(cl.sampleRate, 1), Keep: cl.keepAudio}
	if stream, _ := cl.body["stream"].(bool); stream {
		end := readChatStream(reqCtx, resp.Body, b, spec, cl.onEvent, c.stallTimeout)
		return b.Finish(end)
	}
	readChatBody(resp.Body, b, spec)
	return b.Finish(time.Now())
}

// post sends the request and checks the status. On failure it returns a nil response
// with the failure recorded. done releases the request's context.
func (c *client) post(ctx context.Context, path, contentType string, body io.Reader, cl call, b *record.Builder) (*http.Response, context.Context, func()) {
	timeout := c.cfg.Timeout.D()
	if cl.timeout > 0 {
		timeout = cl.timeout
	}
	reqCtx, cancel := context.WithTimeout(ctx, timeout)
	req, err := http.NewRequestWithContext(reqCtx, http.MethodPost, c.cfg.BaseURL+path, body)
	if err != nil {
		b.Fail(record.KindConnect, err.Error())
		return nil, reqCtx, cancel
	}
	req.Header = c.cfg.header(cl.headers)
	req.Header.Set("Content-Type", contentType)
	resp, err := c.http.Do(req)
	if err != nil {
		b.Fail(transportKind(reqCtx, err, record.KindConnect), err.Error())
		return nil, reqCtx, cancel
	}
	b.SetStatus(resp.StatusCode)
	if resp.StatusCode != http.StatusOK {
		msg := errorBody(resp.Body)
		resp.Body.Close()
		b.Fail(record.KindHTTPStatus, fmt.Sprintf("HTTP %d from %s: %s", resp.StatusCode, path, msg))
		return nil, reqCtx, cancel
	}
	return resp, reqCtx, cancel
}

// errorBody reads {"error":{"message"}} or {"detail": …}, or the start of the text.
func errorBody(r io.Reader) string {
	raw, _ := io.ReadAll(io.LimitReader(r, 64<<10))
	var ch chunk.Chunk
	if chunk.Decode(raw, &ch) == nil {
		if ch.Error != nil && ch.Error.Message != "" {
			return ch.Error.Message
		}
		if ch.Detail != nil {
			return ch.Detail.Message
		}
	}
	s := strings.TrimSpace(string(raw))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// transportKind classifies a transport failure by what ended it.
func transportKind(ctx context.Context, err error, otherwise string) string {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return record.KindTimeout
	case errors.Is(ctx.Err(), context.Canceled):
		return record.KindCanceled
	}
	return otherwise
}

// readChatStream reads SSE chat chunks until [DONE] and returns the arrival time of the
// last message before it (E2EL's end, omni-metrics.md §3).
func readChatStream(ctx context.Context, body io.Reader, b *record.Builder, spec chunk.AudioSpec, onEvent func(Event), stall time.Duration) time.Time {
	w := newStallWatch(body, stall)
	defer w.stop()
	r := sse.NewReader(w, sse.WithMaxEventSize(maxEventSize))
	var ch chunk.Chunk
	last := time.Now()
	for {
		ev, err := r.Next()
		if err != nil {
			failStream(ctx, b, err, w.stalled(), r.Offset())
			return last
		}
		if ev.Done {
			return last
		}
		last = ev.Time
		if err := chunk.Decode(ev.Data, &ch); err != nil {
			b.Fail(record.KindMalformed, fmt.Sprintf("event at byte %d: %v", ev.Offset, err))
			continue
		}
		applyChunk(b, &ch, ev.Time, spec, onEvent)
	}
}

func failStream(ctx context.Context, b *record.Builder, err error, stalled bool, offset int64) {
	switch {
	case stalled:
		b.Fail(record.KindStall, fmt.Sprintf("no data for longer than the stall timeout after byte %d", offset))
	case errors.Is(err, sse.ErrNoDone):
		b.Fail(record.KindTruncated, fmt.Sprintf("stream ended at byte %d before [DONE]", offset))
	case errors.Is(err, sse.ErrEventTooLarge):
		b.Fail(record.KindOversized, err.Error())
	default:
		b.Fail(transportKind(ctx, err, record.KindReset), fmt.Sprintf("at byte %d: %v", offset, err))
	}
}

// applyChunk feeds one decoded chat chunk (streamed or whole) to the record.
func applyChunk(b *record.Builder, ch *chunk.Chunk, at time.Time, spec chunk.AudioSpec, onEvent func(Event)) {
	if ch.Error != nil {
		b.Fail(record.KindStreamError, ch.Error.Message)
		notify(onEvent, Event{Time: at, Type: "error", Text: ch.Error.Message})
		return
	}
	b.SetRequestID(ch.ID)
	b.OnStageMetrics(ch.Metrics)
	if len(ch.Choices) == 0 && ch.Usage != nil {
		b.OnUsage(*ch.Usage)
		notify(onEvent, Event{Time: at, Type: "usage"})
	}
	for i := range ch.Choices {
		msg := &ch.Choices[i].Delta
		if !ch.Choices[i].Message.Content.Empty() || ch.Choices[i].Message.Audio != nil {
			msg = &ch.Choices[i].Message
		}
		applyMessage(b, ch, msg, at, spec, onEvent)
	}
}

func applyMessage(b *record.Builder, ch *chunk.Chunk, msg *chunk.Message, at time.Time, spec chunk.AudioSpec, onEvent func(Event)) {
	switch {
	case ch.Modality == "audio":
		addAudio(b, msg.Content.Text, at, spec, onEvent)
		if ch.Usage != nil {
			b.OnUsage(*ch.Usage)
		}
	case msg.Audio != nil:
		addAudio(b, msg.Audio.Data, at, spec, onEvent)
		if len(msg.Audio.Transcript) > 0 {
			b.OnTextChunk(at, msg.Audio.Transcript, ch.Usage)
		}
	case len(msg.Content.Parts) > 0:
		for _, p := range msg.Content.Parts {
			if p.Type == "text" {
				b.OnTextChunk(at, p.Text, ch.Usage)
				continue
			}
			addImageURL(b, p.ImageURL.URL, at, onEvent)
			b.OnImageStats(p.StageDurations, p.PeakMemoryMB)
		}
	default:
		b.OnTextChunk(at, msg.Content.Text, ch.Usage)
		if len(msg.Content.Text) > 0 {
			notify(onEvent, Event{Time: at, Type: "text", Text: string(msg.Content.Text), Modality: "text"})
		}
	}
}

func addAudio(b *record.Builder, data []byte, at time.Time, spec chunk.AudioSpec, onEvent func(Event)) {
	if len(data) == 0 {
		return
	}
	piece, err := chunk.DecodeAudio(data, spec)
	if err != nil {
		b.Fail(record.KindWAVBroken, err.Error())
		return
	}
	format := "pcm"
	if piece.WAV {
		format = "wav"
	}
	b.OnAudioChunk(at, format, piece)
	notify(onEvent, Event{Time: at, Type: "audio", Bytes: int(piece.Bytes), Modality: "audio"})
}

// addImageURL reads a data: URL image; remote URLs count as an image of unknown size.
func addImageURL(b *record.Builder, url []byte, at time.Time, onEvent func(Event)) {
	var w, h int
	if _, data, ok := bytes.Cut(url, []byte("base64,")); ok {
		if raw, err := base64.StdEncoding.DecodeString(string(data)); err == nil {
			w, h, _ = chunk.ImageSize(raw)
		}
	}
	b.OnImage(at, w, h, nil)
	notify(onEvent, Event{Time: at, Type: "image", Modality: "image"})
}

// readChatBody reads a non-streaming chat response.
func readChatBody(body io.Reader, b *record.Builder, spec chunk.AudioSpec) {
	raw, err := io.ReadAll(body)
	at := time.Now()
	if err != nil {
		b.Fail(record.KindReset, err.Error())
		return
	}
	var ch chunk.Chunk
	if err := chunk.Decode(raw, &ch); err != nil {
		b.Fail(record.KindMalformed, "response body: "+err.Error())
		return
	}
	if ch.Usage != nil {
		b.OnUsage(*ch.Usage)
	}
	ch.Usage = nil
	applyChunk(b, &ch, at, spec, nil)
}

func notify(onEvent func(Event), ev Event) {
	if onEvent != nil {
		onEvent(ev)
	}
}
