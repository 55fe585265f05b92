package mock

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/websocket"
)

// Timeouts of vLLM-Omni's streaming speech handler.
const (
	wsConfigTimeout = 10 * time.Second
	wsIdleTimeout   = 30 * time.Second
)

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// wsConfig is the sticky session.config of a streaming speech session.
type wsConfig struct {
	Model            string          `json:"model"`
	Voice            json.RawMessage `json:"voice"`
	ResponseFormat   string          `json:"response_format"`
	StreamAudio      bool            `json:"stream_audio"`
	SplitGranularity string          `json:"split_granularity"`
	Seed             *int64          `json:"seed"`
}

// wsSession is one connection of /v1/audio/speech/stream
// (serving_speech_stream.py): text in, per-sentence audio out, input.done
// flushes an utterance and the connection stays open.
type wsSession struct {
	s         *Server
	conn      *websocket.Conn
	r         *http.Request
	cfg       *wsConfig
	p         *Profile
	fault     *Fault
	mid       midStream
	buf       strings.Builder
	utterance int
	sentence  int
}

func (s *Server) handleSpeechStream(w http.ResponseWriter, r *http.Request) {
	s.serveWS(w, r, func(conn *websocket.Conn, fault *Fault) {
		ss := &wsSession{s: s, conn: conn, r: r, fault: fault, mid: midStream{f: fault}}
		ss.serve()
	})
}

// serveWS draws the request's fault, of which a status refuses the handshake, upgrades
// and runs serve with the connection, which Close drops, and the fault left to act
// inside the session.
func (s *Server) serveWS(w http.ResponseWriter, r *http.Request, serve func(*websocket.Conn, *Fault)) {
	fault, done := s.requestFault(w, r)
	if done {
		return
	}
	conn, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	s.mu.Lock()
	s.wsConns[conn] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.wsConns, conn)
		s.mu.Unlock()
		_ = conn.Close()
	}()
	serve(conn, fault)
}

func (ss *wsSession) serve() {
	for {
		timeout := wsIdleTimeout
		if ss.cfg == nil {
			timeout = wsConfigTimeout
		}
		_ = ss.conn.SetReadDeadline(time.Now().Add(timeout))
		_, raw, err := ss.conn.ReadMessage()
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				if ss.cfg == nil {
					ss.sendError("Timeout waiting for session.config")
				} else {
					ss.sendError("Idle timeout: no message received")
				}
			}
			return
		}
		var msg struct {
			Type string  `json:"type"`
			Text *string `json:"text"`
		}
		if json.Unmarshal(raw, &msg) != nil {
			ss.sendError("Invalid JSON message")
			if ss.cfg == nil {
				return
			}
			continue
		}
		switch {
		case msg.Type == "session.config":
			if ss.buf.Len() > 0 {
				ss.sendError("session.config cannot be applied while an utterance is in progress; send input.done first")
				continue
			}
			if !ss.configure(raw) && ss.cfg == nil {
				return
			}
		case ss.cfg == nil:
			ss.sendError("Expected session.config, got: " + msg.Type)
			return
		case msg.Type == "input.text":
			if msg.Text == nil {
				ss.sendError("input.text requires a string value")
				continue
			}
			ss.buf.WriteString(*msg.Text)
			if ss.cfg.SplitGranularity == "sentence" && !ss.flush(false) {
				return
			}
		case msg.Type == "input.done":
			if !ss.flush(true) {
				return
			}
			ss.sendJSON(map[string]any{"type": "session.done", "utterance_index": ss.utterance, "total_sentences": ss.sentence})
			ss.utterance++
			ss.sentence = 0
		case msg.Type == "session.close":
			_ = ss.conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""))
			return
		default:
			ss.sendError("Unknown message type: " + msg.Type)
		}
	}
}

// configure applies a session.config; it reports whether it was accepted.
func (ss *wsSession) configure(raw []byte) bool {
	var cfg wsConfig
	if err := json.Unmarshal(raw, &cfg); err != nil {
		ss.sendError("Invalid session config: " + err.Error())
		return false
	}
	cfg.ResponseFormat = firstNonEmpty(cfg.ResponseFormat, "wav")
	cfg.SplitGranularity = firstNonEmpty(cfg.SplitGranularity, "none")
	switch {
	case cfg.ResponseFormat != "wav" && cfg.ResponseFormat != "pcm":
		ss.sendError(fmt.Sprintf("Invalid session config: response_format '%s': the simulator encodes only wav and pcm", cfg.ResponseFormat))
		return false
	case cfg.StreamAudio && cfg.ResponseFormat != "pcm":
		ss.sendError("Invalid session config: stream_audio=true requires response_format='pcm'")
		return false
	case cfg.SplitGranularity != "none" && cfg.SplitGranularity != "sentence":
		ss.sendError(fmt.Sprintf("Invalid session config: split_granularity '%s' (simulated: none, sentence)", cfg.SplitGranularity))
		return false
	}
	p, ok := ss.s.profileFor(cfg.Model, OutputAudio)
	if !ok || p.has(OutputAudio) < 0 {
		ss.sendError("The model `" + cfg.Model + "` does not exist.")
		return false
	}
	ss.cfg, ss.p = &cfg, p
	return true
}

// flush synthesises the buffered text: complete sentences only unless all
// is set. It reports false when the connection is gone.
func (ss *wsSession) flush(all bool) bool {
	text := ss.buf.String()
	ss.buf.Reset()
	var units []string
	if ss.cfg.SplitGranularity == "sentence" {
		for {
			i := strings.IndexAny(text, ".!?")
			if i < 0 {
				break
			}
			units = append(units, strings.TrimSpace(text[:i+1]))
			text = text[i+1:]
		}
	}
	if all {
		units = append(units, strings.TrimSpace(text))
		text = ""
	}
	ss.buf.WriteString(text)
	for _, u := range units {
		if u == "" {
			continue
		}
		if !ss.sentenceAudio(u) {
			return false
		}
		ss.sentence++
	}
	return true
}

// sentenceAudio sends audio.start, the audio and audio.done for one unit.
// It reports false when the connection is gone.
func (ss *wsSession) sentenceAudio(text string) bool {
	start := map[string]any{"type": "audio.start", "utterance_index": ss.utterance,
		"sentence_index": ss.sentence, "sentence_text": text, "format": ss.cfg.ResponseFormat}
	stream := ss.cfg.StreamAudio
	if !stream {
		ss.sendJSON(start)
	}
	pl, g := ss.s.speechPipeline(ss.p, text, ss.cfg.Voice, ss.cfg.Seed)
	defer pl.done(errAborted)
	var all []byte
	total, started := 0, !stream
	err := pl.run(ss.r.Context(), func(st step, last bool) error {
		stage := pl.stages[st.stage]
		b := g.tone(stage).next(stage.AudioSecondsPerChunk)
		if !stream {
			// Without stream_audio the whole sentence goes out as one frame.
			all = append(all, b...)
			if !last {
				return nil
			}
			b = all
			if ss.cfg.ResponseFormat == "wav" {
				b = wavFile(stage.SampleRate, all)
			}
			return ss.sendAudio(b, 0, 1, true, &total)
		}
		if !started {
			// Streamed pcm defers audio.start to the first chunk and states its format.
			start["sample_rate"], start["channels"] = stage.SampleRate, 1
			ss.sendJSON(start)
			started = true
		}
		return ss.sendAudio(b, st.index, len(pl.plans[st.stage].outputs), last, &total)
	})
	// Each sentence is one request to the engine; it is counted before audio.done goes out.
	pl.done(err)
	failed := err == errGenerationFailed
	if err != nil && !failed {
		return false
	}
	if !started {
		ss.sendJSON(start)
	}
	ss.sendJSON(map[string]any{"type": "audio.done", "utterance_index": ss.utterance,
		"sentence_index": ss.sentence, "total_bytes": total, "error": failed})
	return true
}

// errGenerationFailed ends a sentence whose generation a fault failed; the
// session goes on, as vLLM-Omni's does.
var errGenerationFailed = fmt.Errorf("%w of the sentence", errEngineFailed)

// sendAudio writes audio frame i of n, acting on a fault due now.
func (ss *wsSession) sendAudio(b []byte, i, n int, last bool, total *int) error {
	switch ss.mid.next(last) {
	case FaultStall:
		if err := sleepCtx(ss.r.Context(), durationOf(ss.fault)); err != nil {
			return err
		}
	case FaultReset:
		ss.reset()
		return errAborted
	case FaultMalformed:
		if err := ss.conn.WriteMessage(websocket.TextMessage, []byte(`{"type":"audio.chunk","audio_b64":`)); err != nil {
			return err
		}
	case FaultErrorEvent:
		ss.sendJSON(map[string]any{"type": "error", "message": fmt.Sprintf("Generation failed for utterance %d, sentence %d: simulated engine failure",
			ss.utterance, ss.sentence), "partial_audio": *total > 0, "action": "discard"})
		return errGenerationFailed
	}
	if truncatesAt(ss.fault, i, n) {
		b = truncateAudio(b)
	}
	*total += len(b)
	return ss.conn.WriteMessage(websocket.BinaryMessage, b)
}

func (ss *wsSession) sendJSON(v any) { _ = ss.conn.WriteJSON(v) }

func (ss *wsSession) sendError(msg string) {
	ss.sendJSON(map[string]any{"type": "error", "message": msg})
}

// reset drops the TCP connection with an RST, as a crashed server would.
func (ss *wsSession) reset() { resetWS(ss.conn) }

func resetWS(conn *websocket.Conn) {
	if tc, ok := conn.NetConn().(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}
