package mock

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/gorilla/websocket"
)

// Realtime lanes (Config.RealtimeLane): which protocol /v1/realtime speaks without
// ?duplex=1. vLLM-Omni's answer depends on its version, model and deploy config.
const (
	// RealtimeLaneOmni is vLLM-Omni's default (realtime_connection.py): vLLM's ASR
	// protocol plus response.audio.delta {audio, sample_rate_hz} and response.audio.done
	// {has_audio}.
	RealtimeLaneOmni = "vllm-omni"
	// RealtimeLaneOpenAI is the Qwen3-Omni lane (realtime_openai_duplex_api.md):
	// transcription.delta/done and response.output_audio.delta/done with audio.
	RealtimeLaneOpenAI = "openai"
)

// rtLane is what one connection speaks.
type rtLane int

const (
	laneOmni rtLane = iota
	laneOpenAI
	laneDuplex // ?duplex=1 or /v1/duplex: OpenAI GA events, response.created/done, barge-in
)

// rtConn is one /v1/realtime session: a reader of client events and a responder that
// answers each committed turn in order, with the chat pipeline's stages and timing.
type rtConn struct {
	s     *Server
	conn  *websocket.Conn
	r     *http.Request
	lane  rtLane
	fault *Fault
	id    string

	wmu sync.Mutex // writes come from the reader and the responder
	mid midStream  // faults count outputs across the session's responses

	mu       sync.Mutex
	p        *Profile
	vad      bool
	speech   int  // input bytes of the turn being spoken
	speaking bool // VAD: speech seen since the last commit
	cancel   context.CancelFunc
	turns    chan int // committed turns' input bytes
	turn     int
}

func (s *Server) handleRealtime(w http.ResponseWriter, r *http.Request) {
	lane := laneOmni
	if s.cfg.RealtimeLane == RealtimeLaneOpenAI {
		lane = laneOpenAI
	}
	switch strings.ToLower(r.URL.Query().Get("duplex")) {
	case "1", "true", "on":
		lane = laneDuplex
	}
	if r.URL.Path == "/v1/duplex" {
		lane = laneDuplex
	}
	s.serveWS(w, r, func(conn *websocket.Conn, fault *Fault) {
		c := &rtConn{s: s, conn: conn, r: r, lane: lane, fault: fault, mid: midStream{f: fault},
			id: s.newID("sess_"), turns: make(chan int, 16)}
		c.serve()
	})
}

func (c *rtConn) serve() {
	if c.lane == laneOmni {
		c.send(map[string]any{"type": "session.created", "id": c.id})
	} else {
		c.send(map[string]any{"type": "session.created", "session": map[string]any{"object": "realtime.session", "id": c.id}})
	}
	ctx, stop := context.WithCancel(c.r.Context())
	var wg sync.WaitGroup
	wg.Go(func() { c.respond(ctx) })
	defer func() {
		stop()
		close(c.turns)
		wg.Wait()
	}()
	for {
		_, raw, err := c.conn.ReadMessage()
		if err != nil {
			return
		}
		if !c.handle(raw) {
			return
		}
	}
}

// handle takes one client event and reports whether the session goes on.
func (c *rtConn) handle(raw []byte) bool {
	var ev struct {
		Type    string          `json:"type"`
		Model   *string         `json:"model"`
		Session json.RawMessage `json:"session"`
		Audio   string          `json:"audio"`
		Final   bool            `json:"final"`
	}
	if json.Unmarshal(raw, &ev) != nil {
		c.sendError("invalid_json", "Invalid JSON")
		return true
	}
	switch ev.Type {
	case "session.update":
		return c.update(ev.Model, ev.Session)
	case "input_audio_buffer.append":
		pcm, err := base64.StdEncoding.DecodeString(ev.Audio)
		if err != nil || len(pcm) == 0 {
			c.sendError("invalid_audio", "Invalid audio data")
			return true
		}
		c.append(pcm)
	case "input_audio_buffer.commit":
		// vLLM's lanes open a turn with a commit that is not final; the final one ends it.
		if c.lane != laneOmni || ev.Final {
			c.commit()
		}
	case "response.create", "input_audio_buffer.clear", "session.heartbeat", "playback.ack":
	case "response.cancel":
		c.interrupt()
	case "session.close":
		c.send(map[string]any{"type": "session.closed", "session_id": c.id, "reason": "client_close"})
		return false
	default:
		c.sendError("unknown_event", "Unknown event type: "+ev.Type)
	}
	return true
}

// update applies session.update: vLLM's names the model at the top level, OpenAI's in
// the session object, with turn_detection.
func (c *rtConn) update(top *string, raw json.RawMessage) bool {
	var sess struct {
		Model         *string `json:"model"`
		TurnDetection *struct {
			Type string `json:"type"`
		} `json:"turn_detection"`
	}
	_ = json.Unmarshal(raw, &sess)
	model := top
	if c.lane != laneOmni {
		model = sess.Model
	}
	if model == nil {
		c.sendError("invalid_event", "Missing required field: model")
		return true
	}
	p, ok := c.s.profileFor(*model, OutputAudio)
	if !ok || p.has(OutputAudio) < 0 || p.has(OutputText) < 0 {
		c.sendError("model_not_found", "The model `"+*model+"` does not exist.")
		return true
	}
	c.mu.Lock()
	c.p, c.vad = p, sess.TurnDetection != nil && sess.TurnDetection.Type == "server_vad"
	c.mu.Unlock()
	if c.lane != laneOmni {
		c.send(map[string]any{"type": "session.updated", "session": map[string]any{"id": c.id, "model": p.Model}})
	}
	return true
}

// append buffers speech. In the duplex lane, speech over a response interrupts it; with
// server VAD, silence after speech ends the turn.
func (c *rtConn) append(pcm []byte) {
	c.mu.Lock()
	silent := allZero(pcm)
	c.speech += len(pcm)
	barge := c.lane == laneDuplex && c.cancel != nil && !silent
	endOfTurn := c.vad && silent && c.speaking
	c.speaking = (c.speaking || !silent) && !endOfTurn
	c.mu.Unlock()
	if barge {
		c.interrupt()
	}
	if endOfTurn {
		c.send(map[string]any{"type": "input_audio_buffer.speech_stopped"})
		c.commit()
	}
}

func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// commit queues the spoken turn for the responder.
func (c *rtConn) commit() {
	c.mu.Lock()
	ready, n := c.p != nil, c.speech
	c.speech, c.speaking = 0, false
	c.mu.Unlock()
	switch {
	case !ready:
		c.sendError("model_not_validated", "Model not validated. Make sure to validate the model by sending a session.update event.")
	case n == 0 && c.lane != laneOmni:
		c.sendError("input_audio_buffer_empty", "input_audio_buffer.commit requires a non-empty input audio buffer.")
	default:
		if c.lane != laneOmni {
			c.send(map[string]any{"type": "input_audio_buffer.committed"})
		}
		select {
		case c.turns <- n:
		default:
			c.sendError("turn_queue_full", "too many turns waiting for a response")
		}
	}
}

// interrupt cancels the response in flight, as a barge-in or response.cancel does.
func (c *rtConn) interrupt() {
	c.mu.Lock()
	if c.cancel != nil {
		c.cancel()
	}
	c.mu.Unlock()
}

// respond answers the committed turns in order until the session ends.
func (c *rtConn) respond(ctx context.Context) {
	for n := range c.turns {
		if ctx.Err() != nil {
			return
		}
		rctx, cancel := context.WithCancel(ctx)
		c.mu.Lock()
		c.cancel = cancel
		p, turn := c.p, c.turn
		c.turn++
		c.mu.Unlock()
		err := c.response(rctx, p, turn, n)
		c.mu.Lock()
		c.cancel = nil
		c.mu.Unlock()
		cancel()
		if err != nil && ctx.Err() == nil && rctx.Err() == nil {
			return // a fault ended the session
		}
	}
}

// response streams one turn's answer: the text stage's tokens as transcript deltas and
// the audio stage's chunks, timed by the pipeline, in the lane's events.
func (c *rtConn) response(ctx context.Context, p *Profile, turn, inputBytes int) error {
	ai := p.has(OutputAudio)
	stages := p.Stages[:ai+1]
	visible := make([]bool, len(stages))
	for i, st := range stages {
		visible[i] = st.Output == OutputText || st.Output == OutputAudio
	}
	rng, seed := c.s.requestRNG("realtime", p.Model, c.id, strconv.Itoa(turn))
	// 16 kHz PCM16 speech: about 3 tokens a second of it.
	pl := c.s.newPipeline(pipelineInput{profile: p, stages: stages, visible: visible, units: stageUnits(stages, 1, 0),
		tokensIn: max(1, inputBytes/10000), finish: "stop", rng: rng})
	defer pl.done(errAborted)
	toks := words(rng, pl.tokensOut())
	g := &generator{toks: toks, seed: seed}
	respID := fmt.Sprintf("resp_%s_%d", c.id, turn)
	// An event no client knows: clients must count it and go on.
	c.send(map[string]any{"type": "omnik.mock.turn", "turn": turn})
	if c.lane == laneDuplex {
		c.send(map[string]any{"type": "response.created", "response": map[string]any{"id": respID, "object": "realtime.response", "status": "in_progress"}})
	}
	var text strings.Builder
	err := pl.run(ctx, func(st step, _ bool) error {
		stage := pl.stages[st.stage]
		// The session's outputs are one stream for faults: no response is known to be
		// the last, so a session shorter than after sees none.
		switch c.mid.next(false) {
		case FaultStall:
			if err := sleepCtx(ctx, durationOf(c.fault)); err != nil {
				return err
			}
		case FaultReset:
			c.reset()
			return errAborted
		case FaultMalformed:
			c.write([]byte(`{"type":"response.audio.delta","audio":`))
		case FaultErrorEvent:
			c.sendError("processing_error", fmt.Sprintf("simulated engine failure in turn %d", turn))
			return errEngineFailed
		}
		if stage.Output == OutputText {
			delta := g.text(pl.plans[st.stage].units[st.index])
			text.WriteString(delta)
			c.send(c.textDelta(respID, delta))
			return nil
		}
		b := g.tone(stage).next(stage.AudioSecondsPerChunk)
		c.send(c.audioDelta(respID, b, stage.SampleRate))
		return nil
	})
	switch {
	case err == nil:
		pl.done(nil)
		c.finish(respID, text.String(), pl)
	case c.lane == laneDuplex && ctx.Err() != nil && c.r.Context().Err() == nil:
		// A barge-in or response.cancel: the response ends cancelled, the session goes on.
		pl.done(errAborted)
		c.send(map[string]any{"type": "response.done", "response": map[string]any{"id": respID, "object": "realtime.response",
			"status": "cancelled", "status_details": map[string]any{"type": "cancelled", "reason": "barge_in"}}})
		return nil
	default:
		pl.done(err)
	}
	return err
}

func (c *rtConn) textDelta(respID, delta string) map[string]any {
	if c.lane == laneDuplex {
		return map[string]any{"type": "response.output_audio_transcript.delta", "response_id": respID, "delta": delta}
	}
	return map[string]any{"type": "transcription.delta", "delta": delta}
}

func (c *rtConn) audioDelta(respID string, pcm []byte, rate int) map[string]any {
	b64 := base64.StdEncoding.EncodeToString(pcm)
	switch c.lane {
	case laneOmni:
		return map[string]any{"type": "response.audio.delta", "audio": b64, "format": "pcm16", "sample_rate_hz": rate}
	case laneOpenAI:
		return map[string]any{"type": "response.output_audio.delta", "audio": b64, "format": "pcm16", "sample_rate_hz": rate}
	}
	return map[string]any{"type": "response.output_audio.delta", "response_id": respID, "delta": b64, "format": "pcm16", "sample_rate_hz": rate}
}

// finish sends the lane's end of a response, with usage.
func (c *rtConn) finish(respID, text string, pl *pipeline) {
	in, out := pl.tokensIn, pl.tokensOut()
	switch c.lane {
	case laneOmni, laneOpenAI:
		c.send(map[string]any{"type": "transcription.done", "text": text,
			"usage": map[string]int{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out}})
		if c.lane == laneOmni {
			c.send(map[string]any{"type": "response.audio.done", "has_audio": true})
		} else {
			c.send(map[string]any{"type": "response.output_audio.done"})
		}
	default:
		c.send(map[string]any{"type": "response.output_audio.done", "response_id": respID})
		c.send(map[string]any{"type": "response.output_audio_transcript.done", "response_id": respID, "transcript": text})
		c.send(map[string]any{"type": "response.done", "response": map[string]any{"id": respID, "object": "realtime.response",
			"status": "completed", "usage": map[string]int{"input_tokens": in, "output_tokens": out, "total_tokens": in + out}}})
		c.send(map[string]any{"type": "rate_limits.updated", "rate_limits": []any{}})
	}
}

// sendError writes the lane's error event: vLLM's has a string and a code, OpenAI's an
// object.
func (c *rtConn) sendError(code, msg string) {
	if c.lane == laneOmni {
		c.send(map[string]any{"type": "error", "error": msg, "code": code})
		return
	}
	c.send(map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "code": code, "message": msg}})
}

func (c *rtConn) send(v any) { c.write(mustJSON(v)) }

func (c *rtConn) write(b []byte) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.conn.WriteMessage(websocket.TextMessage, b)
}

// reset drops the TCP connection with an RST, as a crashed server would.
func (c *rtConn) reset() {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	resetWS(c.conn)
}
