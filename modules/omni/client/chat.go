package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
	"github.com/omnik-dev/omnik/modules/omni/record"
	"github.com/omnik-dev/omnik/modules/omni/sse"
	"github.com/omnik-dev/omnik/modules/omni/wav"
)

// openAIAudio is the layout of OpenAI's raw audio (pcm16): 24 kHz mono.
var openAIAudio = wav.PCM16(24000, 1)

// Chat posts a chat completion and reads it, streamed (SSE) or whole (JSON).
func Chat(ctx context.Context, hc *http.Client, req Request) *record.Record {
	c, failed := start(ctx, hc, &req, record.EndpointChat)
	if c == nil {
		return failed
	}
	if !isEventStream(c.resp) {
		return c.chatBody()
	}
	return c.chatStream()
}

// chatStream reads the SSE form.
func (c *call) chatStream() *record.Record {
	var ch chunk.Chunk
	end := c.events(func(ev sse.Event) bool {
		return c.decode(ev, &ch) && c.chatChunk(ev.Time, &ch)
	})
	return c.finish(end)
}

// chatChunk takes one streamed chunk (omni-metrics.md §3, wire-formats.md §1.3).
func (c *call) chatChunk(t time.Time, ch *chunk.Chunk) bool {
	c.b.SetRequestID(ch.ID)
	c.b.OnChunkStats(ch)
	if ch.Usage != nil {
		// Counts only grow, so an audio chunk's completion_tokens 0 is harmless here.
		c.b.OnUsage(*ch.Usage)
	}
	for i := range ch.Choices {
		d := &ch.Choices[i].Delta
		var ok bool
		switch ch.Modality {
		case "audio":
			_, ok = c.audio(t, d.Content.Text, c.req.Audio)
		case "image":
			ok = c.imageParts(t, d.Content.Parts)
		case "", "text":
			ok = c.message(t, d, ch.Usage)
		default:
			// Counting it as text would put another modality's bytes in TTFT and ITL.
			c.b.Flag(record.AnomalyModality, fmt.Sprintf("a chunk of modality %.40q, not measured", ch.Modality))
			ok = true
		}
		if !ok {
			return false
		}
	}
	return true
}

// message takes a text delta or message: text content, OpenAI audio, image parts.
func (c *call) message(t time.Time, m *chunk.Message, usage *chunk.Usage) bool {
	text := m.Content.Text
	if m.Audio != nil {
		spec := c.req.Audio
		if spec.Raw == (wav.Format{}) {
			spec.Raw = openAIAudio
		}
		if _, ok := c.audio(t, m.Audio.Data, spec); !ok {
			return false
		}
		if len(text) == 0 {
			// OpenAI streams the spoken text as the transcript.
			text = m.Audio.Transcript
		}
	}
	c.b.OnTextChunk(t, text, usage)
	return c.imageParts(t, m.Content.Parts)
}

// audio takes one base64 audio payload: a standalone WAV or raw PCM. It returns the
// piece, and false when the payload failed the request.
func (c *call) audio(t time.Time, b64 []byte, spec chunk.AudioSpec) (chunk.AudioPiece, bool) {
	p, err := chunk.DecodeAudio(b64, spec)
	if err != nil {
		c.b.Fail(audioKind(err), fmt.Sprintf("audio chunk at %v: %v", t.Sub(c.b.Start()), err))
		return p, false
	}
	format := spec.Format
	if p.WAV {
		format = "wav"
	}
	c.b.OnAudioChunk(t, format, p)
	return p, true
}

// audioKind is the failure kind of an audio payload that does not decode: its base64,
// like any malformed payload, or its WAV.
func audioKind(err error) string {
	if errors.Is(err, chunk.ErrBadBase64) {
		return record.KindMalformed
	}
	return record.KindWAVBroken
}

// imageParts takes vLLM-Omni's image list content: data URLs with stage statistics.
func (c *call) imageParts(t time.Time, parts []chunk.Part) bool {
	for i := range parts {
		p := &parts[i]
		c.b.OnServerStats(p.StageDurations, float64(p.PeakMemoryMB))
		if p.Type == "image_url" {
			c.image(t, p.ImageURL.URL)
		}
	}
	return true
}

// image records one image, reading its size when it is inline. An inline image whose
// base64 is corrupt anywhere, or whose header is cut short, fails the request: it is not
// an image the server made. A format the standard library cannot read (webp) only has
// no size.
func (c *call) image(t time.Time, src []byte) {
	if !bytes.HasPrefix(src, []byte("http")) {
		if bad := chunk.CheckBase64(src); bad != nil {
			c.b.Fail(record.KindMalformed, "image: "+bad.Error())
			return
		}
	}
	w, h, err := chunk.ImageSize(src)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		c.b.Fail(record.KindMalformed, "image: header cut short: "+err.Error())
		return
	}
	var keep []byte
	if c.req.KeepImages {
		keep = append([]byte(nil), src...)
	}
	c.b.OnImage(t, w, h, keep)
}

// chatBody reads a non-streamed completion: vLLM-Omni sends one choice per modality,
// all with index 0; OpenAI one choice holding text and audio.
func (c *call) chatBody() *record.Record {
	var ch chunk.Chunk
	at, ok := c.decodeBody(&ch)
	if !ok {
		return c.finish(at)
	}
	c.b.SetRequestID(ch.ID)
	c.b.OnChunkStats(&ch)
	if ch.Usage != nil {
		c.b.OnUsage(*ch.Usage)
	}
	for i := range ch.Choices {
		if !c.message(at, &ch.Choices[i].Message, nil) {
			break
		}
	}
	return c.finish(at)
}

// decodeBody reads and decodes a whole JSON response; ok is false when it failed (the
// record says why) and at is when the body was read.
func (c *call) decodeBody(ch *chunk.Chunk) (at time.Time, ok bool) {
	body, at, err := c.readBody()
	if err != nil {
		c.fail(err)
		return time.Now(), false
	}
	if err := chunk.Decode(body, ch); err != nil {
		c.b.Fail(record.KindMalformed, "response body: "+err.Error())
		return at, false
	}
	if e := ch.Failure(); e != nil {
		c.b.Fail(record.KindStreamError, "response body: "+errorText(e))
		return at, false
	}
	return at, true
}
