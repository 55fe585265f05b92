package client

import (
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
	"github.com/omnik-dev/omnik/modules/omni/record"
	"github.com/omnik-dev/omnik/modules/omni/sse"
	"github.com/omnik-dev/omnik/modules/omni/wav"
)

// Speech posts to /v1/audio/speech and reads the audio: raw (a whole body or a stream,
// PCM or WAV with a placeholder header) or SSE (speech.audio.delta / done / error). For
// raw PCM, req.Audio.Raw gives the rate and channels the stream does not carry.
func Speech(ctx context.Context, hc *http.Client, req Request) *record.Record {
	c, failed := start(ctx, hc, &req, record.EndpointSpeech)
	if c == nil {
		return failed
	}
	c.usageHeaders()
	if isEventStream(c.resp) {
		return c.speechEvents()
	}
	return c.rawAudio()
}

// usageHeaders reads vLLM-Omni's token counts from the x-vllm-omni-* headers.
func (c *call) usageHeaders() {
	num := func(name string) int {
		n, _ := strconv.Atoi(c.resp.Header.Get("X-Vllm-Omni-" + name + "-Tokens"))
		return n
	}
	c.b.OnUsage(chunk.Usage{InputTokens: num("Input"), OutputTokens: num("Output"), TotalTokens: num("Total")})
}

// speechEvents reads the SSE form. The stream may end after speech.audio.done without a
// [DONE] (the simulator llm-d-inference-sim sends none), so done ends the read.
func (c *call) speechEvents() *record.Record {
	var ch chunk.Chunk
	spec := c.req.Audio
	end := c.events(func(ev sse.Event) bool {
		if !c.decode(ev, &ch) {
			return false
		}
		typ := ch.Type
		if typ == "" {
			typ = ev.Name
		}
		c.b.OnChunkStats(&ch)
		switch typ {
		case "speech.audio.done":
			if ch.Usage != nil {
				c.b.OnUsage(*ch.Usage)
			}
			return false
		case "speech.audio.error":
			// decode failed an event with an error object or string; this one has neither.
			msg := ch.MessageText()
			if msg == "" {
				msg = "speech.audio.error without a message"
			}
			c.b.Fail(record.KindStreamError, fmt.Sprintf("event at byte %d: %s", ev.Offset, msg))
			return false
		case "speech.audio.delta":
			payload := ch.Audio
			if payload == nil {
				payload = ch.Delta // the first SSE builds used `delta`
			}
			p, ok := c.audio(ev.Time, payload, spec)
			if ok && p.WAV {
				// vLLM-Omni's WAV stream: one header, then samples in its format; a
				// later standalone WAV is still read as one.
				spec.Format, spec.Raw = "", p.Format
			}
			return ok
		}
		return true
	})
	return c.finish(end)
}

// rawAudio reads a raw audio body, stamping each read: every read is a chunk for the
// continuity measurement, as the reference's iter_any() is.
func (c *call) rawAudio() *record.Record {
	ct := c.resp.Header.Get("Content-Type")
	if !audioType(ct) {
		return c.notAudio(ct)
	}
	format := c.req.Audio.Format
	switch {
	case strings.HasPrefix(ct, "audio/wav"), strings.HasPrefix(ct, "audio/x-wav"):
		format = "wav"
	case strings.HasPrefix(ct, "audio/pcm"), strings.HasPrefix(ct, "audio/L16"):
		format = "pcm"
	}
	var (
		ws     wav.Stream
		f      = c.req.Audio.Raw
		total  int64
		frames int64
		buf    = make([]byte, 32<<10)
		keep   = c.req.Audio.Keep
	)
	for {
		n, err := c.resp.Body.Read(buf)
		if n > 0 {
			t := time.Now()
			c.touch()
			p := buf[:n]
			if total == 0 && ws.Pending() == 0 && format != "pcm" && format != "pcm16" &&
				(format == "wav" || strings.HasPrefix(string(p), "RIFF")) {
				format = "wav"
			}
			if format == "wav" {
				m, werr := ws.Add(p)
				if werr != nil {
					c.b.Fail(record.KindWAVBroken, werr.Error())
					return c.finish(t)
				}
				info, _ := ws.Info()
				f, p = info.Format, p[n-m:]
			}
			if len(p) > 0 {
				total += int64(len(p))
				now := f.Frames(total)
				piece := chunk.AudioPiece{Format: f, WAV: format == "wav", Bytes: int64(len(p)), Frames: now - frames}
				if keep {
					piece.Samples = p
				}
				frames = now
				c.b.OnAudioChunk(t, format, piece)
				if c.b.Failed() { // a limit reached
					return c.finish(t)
				}
			}
		}
		if err == io.EOF {
			switch {
			case format == "wav" && ws.Pending() > 0:
				c.b.Fail(record.KindWAVBroken, "stream ended inside the WAV header")
			case total == 0:
				// A 200 with no samples is no speech, whatever its status says.
				c.b.Fail(record.KindTruncated, "the audio body ended before any sample")
			}
			return c.finish(time.Now())
		}
		if err != nil {
			c.fail(err)
			return c.finish(time.Now())
		}
	}
}

// audioType reports a Content-Type that may hold raw audio: an audio type, a byte stream,
// or none. JSON, text and HTML are a server's words, never samples.
func audioType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if ct == "" || err != nil {
		return true // no type said: raw PCM servers send none
	}
	return !(strings.HasPrefix(mt, "text/") || mt == "application/json" || strings.HasSuffix(mt, "+json") || mt == "application/xml")
}

// notAudio fails a 200 whose body is not audio: the error it carries, or what it is.
func (c *call) notAudio(ct string) *record.Record {
	body, _ := io.ReadAll(io.LimitReader(c.resp.Body, 64<<10))
	var ch chunk.Chunk
	if chunk.Decode(body, &ch) == nil {
		if e := ch.Failure(); e != nil {
			c.b.Fail(record.KindStreamError, "speech: a 200 carrying an error: "+errorText(e))
			return c.finish(time.Now())
		}
	}
	text := record.Cut(strings.TrimSpace(string(body)), 200)
	c.b.Fail(record.KindMalformed, fmt.Sprintf("speech: a 200 whose Content-Type %s is not audio: %s", ct, text))
	return c.finish(time.Now())
}
