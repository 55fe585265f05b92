package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/omnik-dev/omnik/modules/httpdebug"
	"github.com/omnik-dev/omnik/modules/omni/chunk"
	"github.com/omnik-dev/omnik/modules/omni/record"
	"github.com/omnik-dev/omnik/modules/omni/wav"
	"github.com/omnik-dev/omnik/modules/tlsclient"
)

// StreamRequest is one websocket TTS session on vLLM-Omni's /v1/audio/speech/stream.
type StreamRequest struct {
	URL    string // ws:// or wss://
	Header http.Header
	// Config holds the session.config fields (model, voice, response_format, stream_audio,
	// split_granularity, …); its "type" is set here.
	Config map[string]any
	Text   []string      // pieces sent as input.text, then input.done
	Pace   time.Duration // pause before each piece after the first, to imitate an LLM feeding the TTS
	// Audio.Raw is the layout of binary PCM frames when audio.start does not say.
	Audio         chunk.AudioSpec
	Tags          map[string]string
	IntendedStart time.Time
	StallTimeout  time.Duration // longest wait for the next server message
	OnEvent       func(at time.Time, data []byte)
	// Limits bound the session: Event is the largest message; zero fields take
	// DefaultLimits.
	Limits Limits
}

// wsEvent is a server message of the speech stream protocol.
type wsEvent struct {
	Type          string       `json:"type"`
	SentenceIndex int          `json:"sentence_index"`
	SentenceText  string       `json:"sentence_text"`
	Format        string       `json:"format"`
	SampleRate    int          `json:"sample_rate"`
	Channels      int          `json:"channels"`
	AudioB64      chunk.String `json:"audio_b64"`
	// Error is an object or string on an error message, but a bool on audio.done (the
	// sentence failed and the session goes on), so it is decoded by errorMessage only.
	Error   json.RawMessage `json:"error"`
	Message string          `json:"message"`
}

// errorMessage is the text of an error message: message, else error as a string or an
// object.
func (ev *wsEvent) errorMessage() string {
	if ev.Message != "" {
		return ev.Message
	}
	var e chunk.Error
	if json.Unmarshal(ev.Error, &e) == nil {
		return errorText(&e)
	}
	var s string
	if json.Unmarshal(ev.Error, &s) == nil && s != "" {
		return s
	}
	return string(ev.Error)
}

// AudioStream runs one websocket TTS session: it sends the config and the text pieces
// on one goroutine while this one reads and times audio.start, the audio (binary frames
// or audio.chunk), audio.done and session.done.
func AudioStream(ctx context.Context, d *websocket.Dialer, req StreamRequest) *record.Record {
	req.Limits = req.Limits.Or(DefaultLimits(record.EndpointAudioStream))
	b := record.NewBuilder(record.EndpointAudioStream, time.Now())
	b.SetLimits(req.Limits.Limits)
	b.SetTags(req.Tags)
	b.SetIntendedStart(req.IntendedStart)
	conn := dialSession(ctx, d, req.URL, req.Header, req.Limits.Event, b)
	if conn == nil {
		return b.Finish(time.Now())
	}
	// Unblock the read when the run stops the session.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	wctx, cancelWriter := context.WithCancel(ctx)
	w := &wsWriter{conn: conn}
	sent := make(chan []time.Time, 1)
	go func() { sent <- sendSession(wctx, w, &req) }()

	s := session{req: &req, b: b, conn: conn}
	end := s.read(ctx)
	stop()
	cancelWriter()
	if b.Failed() {
		conn.Close() // also unblocks a writer stuck on a dead connection
	}
	for _, t := range <-sent {
		b.OnTextSent(t)
	}
	if !b.Failed() {
		w.writeJSON(map[string]string{"type": "session.close"})
		conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	}
	conn.Close()
	b.SetBytes(w.n, s.received)
	r := b.Finish(end)
	markReady(r, req.Text)
	return r
}

// dialSession opens a websocket session, the URL's user info sent as a header, with
// reads bounded to limit bytes a message. On a failure it fails b and returns nil.
func dialSession(ctx context.Context, d *websocket.Dialer, rawURL string, h http.Header, limit int, b *record.Builder) *websocket.Conn {
	if u, err := url.Parse(rawURL); err == nil && u.User != nil {
		h = h.Clone()
		userInfoAsHeader(u, h)
		rawURL = u.String()
	}
	b.Redact(httpdebug.HeaderSecrets(h))
	conn, resp, err := dialCancellable(ctx, d, rawURL, h)
	if resp != nil {
		b.SetStatus(resp.StatusCode)
	}
	if err != nil {
		kind := record.KindConnect
		var ne net.Error
		switch {
		case resp != nil:
			kind = record.KindHTTPStatus
		case ctx.Err() != nil:
			kind = ctxKind(ctx)
		case errors.As(err, &ne) && ne.Timeout():
			// The handshake's deadline is the context's: it can pass before the
			// context's own timer has fired.
			kind = record.KindTimeout
		case tlsclient.IsError(err):
			kind = record.KindTLS
		}
		b.Fail(kind, err.Error())
		return nil
	}
	// gorilla/websocket reads a whole message into memory: the limit refuses a frame by
	// its header, before its payload is read.
	conn.SetReadLimit(int64(limit))
	return conn
}

// markReady sets each utterance's Ready: when the piece holding the end of its
// sentence_text was sent. Sentences are found in order in the text sent; one the server
// reworded stays unknown, and so do the ones after it.
func markReady(r *record.Record, pieces []string) {
	var all strings.Builder
	ends := make([]int, 0, len(r.TextSent)) // byte offset where each sent piece ends
	for _, p := range pieces[:len(r.TextSent)] {
		all.WriteString(p)
		ends = append(ends, all.Len())
	}
	text, cursor := all.String(), 0
	for i := range r.Utterances {
		u := &r.Utterances[i]
		at := strings.Index(text[cursor:], u.Text)
		if u.Text == "" || at < 0 {
			return
		}
		cursor += at + len(u.Text)
		piece := sort.SearchInts(ends, cursor)
		u.Ready = r.TextSent[piece]
	}
}

// wsWriter writes JSON text messages and counts their payload bytes. One goroutine at a
// time uses it: the sender, then (after the sender returned) the session's end.
type wsWriter struct {
	conn *websocket.Conn
	n    int64
}

func (w *wsWriter) writeJSON(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := w.conn.WriteMessage(websocket.TextMessage, data); err != nil {
		return err
	}
	w.n += int64(len(data))
	return nil
}

// sendSession writes session.config, the pieces and input.done, returning when each
// piece was sent. It stops quietly when the session ends first: the reader reports why.
func sendSession(ctx context.Context, conn *wsWriter, req *StreamRequest) []time.Time {
	cfg := map[string]any{}
	for k, v := range req.Config {
		cfg[k] = v
	}
	cfg["type"] = "session.config"
	if conn.writeJSON(cfg) != nil {
		return nil
	}
	times := make([]time.Time, 0, len(req.Text))
	for i, text := range req.Text {
		if i > 0 && req.Pace > 0 {
			select {
			case <-time.After(req.Pace):
			case <-ctx.Done():
				return times
			}
		}
		if conn.writeJSON(map[string]string{"type": "input.text", "text": text}) != nil {
			return times
		}
		times = append(times, time.Now())
	}
	conn.writeJSON(map[string]string{"type": "input.done"})
	return times
}

// session is the reading side of an AudioStream.
type session struct {
	req    *StreamRequest
	b      *record.Builder
	conn   *websocket.Conn
	format string
	f      wav.Format
	ws     wav.Stream
	bytes  int64 // PCM bytes of the current sentence, for frame counts across frames
	// received counts the payload bytes of every message read.
	received int64
}

// read consumes server messages until session.done or a failure and returns the arrival
// of the last message.
func (s *session) read(ctx context.Context) time.Time {
	for {
		if s.req.StallTimeout > 0 {
			s.conn.SetReadDeadline(time.Now().Add(s.req.StallTimeout))
		}
		typ, data, err := s.conn.ReadMessage()
		t := time.Now()
		s.received += int64(len(data))
		if err != nil {
			s.fail(ctx, err)
			return t
		}
		if s.req.OnEvent != nil {
			s.req.OnEvent(t, data)
		}
		if typ == websocket.BinaryMessage {
			if !s.pcm(t, data) || s.b.Failed() {
				return t
			}
			continue
		}
		var ev wsEvent
		if err := json.Unmarshal(data, &ev); err != nil {
			s.b.Fail(record.KindMalformed, fmt.Sprintf("websocket message: %v", err))
			return t
		}
		if !s.event(t, &ev) || s.b.Failed() {
			return t
		}
	}
}

// event takes one JSON message and reports whether to keep reading.
func (s *session) event(t time.Time, ev *wsEvent) bool {
	switch ev.Type {
	case "audio.start":
		s.format, s.f, s.ws, s.bytes = ev.Format, s.req.Audio.Raw, wav.Stream{}, 0
		if ev.SampleRate > 0 {
			s.f.SampleRate = ev.SampleRate
		}
		if ev.Channels > 0 {
			s.f.Channels = ev.Channels
		}
		s.b.OnUtteranceStart(t, ev.SentenceIndex, ev.SentenceText)
	case "audio.chunk":
		p, err := chunk.DecodeAudio(ev.AudioB64, chunk.AudioSpec{Format: s.format, Raw: s.f, Keep: s.req.Audio.Keep})
		if err != nil {
			s.b.Fail(audioKind(err), "audio.chunk: "+err.Error())
			return false
		}
		s.b.OnAudioChunk(t, s.format, p)
	case "audio.done":
		if s.format == "wav" && s.ws.Pending() > 0 {
			s.b.Fail(record.KindWAVBroken, "audio.done inside the sentence's WAV header")
			return false
		}
		s.b.OnUtteranceDone(t)
	case "session.done":
		return false
	case "error":
		s.b.Fail(record.KindStreamError, "error message: "+ev.errorMessage())
		return false
	}
	return true
}

// pcm takes a binary frame: raw PCM, or for wav a sentence's WAV arriving in pieces.
func (s *session) pcm(t time.Time, data []byte) bool {
	if s.format == "wav" {
		n, err := s.ws.Add(data)
		if err != nil {
			s.b.Fail(record.KindWAVBroken, "binary frame: "+err.Error())
			return false
		}
		info, _ := s.ws.Info()
		s.f, data = info.Format, data[len(data)-n:]
	}
	if len(data) == 0 {
		return true
	}
	before := s.f.Frames(s.bytes)
	s.bytes += int64(len(data))
	p := chunk.AudioPiece{Format: s.f, WAV: s.format == "wav", Bytes: int64(len(data)), Frames: s.f.Frames(s.bytes) - before}
	if s.req.Audio.Keep {
		p.Samples = data
	}
	format := s.format
	if format == "" {
		format = "pcm"
	}
	s.b.OnAudioChunk(t, format, p)
	return true
}

// fail classifies a read error; a close before session.done is a truncated session.
func (s *session) fail(ctx context.Context, err error) {
	s.b.Fail(readFailure(ctx, err, s.req.StallTimeout, s.req.Limits.Event, "session.done"))
}

// readFailure classifies a websocket read error: the run's stop, a stall, an oversized
// message, a close before the terminator (named by end), a broken connection.
func readFailure(ctx context.Context, err error, stall time.Duration, limit int, end string) (kind, msg string) {
	var ne net.Error
	var ce *websocket.CloseError
	switch {
	case ctx.Err() != nil:
		return ctxKind(ctx), err.Error()
	case errors.As(err, &ne) && ne.Timeout():
		return record.KindStall, fmt.Sprintf("no message for %v", stall)
	case errors.Is(err, websocket.ErrReadLimit):
		return record.KindOversized, fmt.Sprintf("a websocket message larger than %d bytes (options.omni.maxEventBytes)", limit)
	case errors.As(err, &ce) && ce.Code == websocket.CloseNormalClosure:
		return record.KindTruncated, "session closed before " + end
	}
	return record.KindReset, err.Error()
}

// ctxKind names why a context ended.
func ctxKind(ctx context.Context) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return record.KindTimeout
	}
	return record.KindInterrupted
}

// dialCancellable dials as d does through a connection that ctx's cancellation closes:
// the handshake honours a deadline but not a cancellation once the connection is up, so
// a server that accepts and never answers would hold a stop (Ctrl-C, the end of
// gracefulStop) for the whole handshake timeout.
func dialCancellable(ctx context.Context, d *websocket.Dialer, url string, h http.Header) (*websocket.Conn, *http.Response, error) {
	dd := *d
	dial := d.NetDialContext
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	var mu sync.Mutex
	var raw net.Conn
	dd.NetDialContext = func(c context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(c, network, addr)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		defer mu.Unlock()
		if ctx.Err() != nil { // stopped while dialing, after the close below looked
			conn.Close()
			return nil, ctx.Err()
		}
		raw = conn
		return conn, nil
	}
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if raw != nil {
			raw.Close()
		}
	})
	defer stop()
	return dd.DialContext(ctx, url, h)
}
