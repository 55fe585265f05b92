package client

import (
	"context"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
	"github.com/omnik-dev/omnik/modules/omni/record"
	"github.com/omnik-dev/omnik/modules/omni/wav"
)

// RealtimeRequest is one realtime session on /v1/realtime (or /v1/duplex): several turns
// of user speech, each answered by the server.
type RealtimeRequest struct {
	URL    string // ws:// or wss://, the lane's query included (?duplex=1)
	Header http.Header
	Lane   string // record.RealtimeOmni, RealtimeOpenAI or RealtimeASR
	Duplex bool   // the full-duplex lane: response.listen, session.close at the end
	Model  string
	// Session holds the script's session.update fields; they win over omnik's.
	Session map[string]any
	Turns   []RealtimeTurn
	// Output is the layout of response audio when an event names no sample_rate_hz.
	Output wav.Format
	Chunk  time.Duration // audio per input_audio_buffer.append
	// Speed paces the speech: 1 is real time, 2 twice as fast, 0 as fast as the
	// connection takes it.
	Speed float64
	// VAD leaves the end of each turn to the server's voice detection: no commit, the
	// turn's Silence streamed after its speech.
	VAD bool
	// ResponseCreate sends response.create after each commit (OpenAI servers without
	// turn detection answer only then).
	ResponseCreate bool
	KeepAudio      bool
	Tags           map[string]string
	IntendedStart  time.Time
	StallTimeout   time.Duration // longest wait for the next message while a response is due
	OnEvent        func(at time.Time, data []byte)
	// Limits bound every turn as one response; Event is the largest message.
	Limits Limits
}

// RealtimeTurn is one turn's speech.
type RealtimeTurn struct {
	Audio  []byte     // PCM16 samples
	Format wav.Format // their layout
	// Silence is streamed after the speech with VAD, until the response starts.
	Silence time.Duration
	// BargeIn starts the speech BargeAfter after the previous response's first audio,
	// while it plays, instead of after it ended.
	BargeIn    bool
	BargeAfter time.Duration
}

// rtTurn is one turn's state, shared by the sender and the reader under rtSession.mu.
type rtTurn struct {
	b          *record.Builder
	started    bool      // its speech began
	speechEnd  time.Time // zero until the speech ended
	firstAudio time.Time
	playEnd    time.Time // firstAudio plus the audio received: when playback would end
	created    bool      // response.created seen: the turn ends at response.done
	finished   bool
	end        time.Time // the response's last event
	bargeIn    bool
	outcome    string
	sent, recv int64
	ended      chan struct{} // closed when finished
	audible    chan struct{} // closed at the first audio
}

// rtSession is one session's state.
type rtSession struct {
	req   *RealtimeRequest
	conn  *websocket.Conn
	w     *wsWriter
	start time.Time

	mu      sync.Mutex
	id      string
	turns   []*rtTurn
	stopped chan struct{} // closed when the reader ends: the sender stops
}

// Realtime runs one realtime session and returns a record per turn that started, the
// last one carrying the session's outcome. The sender streams each turn's speech on its
// own goroutine while this one reads and times the responses.
func Realtime(ctx context.Context, d *websocket.Dialer, req RealtimeRequest) []*record.Record {
	req.Limits = req.Limits.Or(DefaultLimits(record.EndpointRealtime))
	s := &rtSession{req: &req, start: time.Now(), stopped: make(chan struct{}), id: "omnik-" + strconv.FormatUint(rand.Uint64(), 36)}
	for range req.Turns {
		b := record.NewBuilder(record.EndpointRealtime, s.start)
		b.SetLimits(req.Limits.Limits)
		b.SetTags(req.Tags)
		s.turns = append(s.turns, &rtTurn{b: b, ended: make(chan struct{}), audible: make(chan struct{})})
	}
	first := s.turns[0]
	first.b.SetIntendedStart(req.IntendedStart)
	first.started = true
	s.conn = dialSession(ctx, d, req.URL, req.Header, req.Limits.Event, first.b)
	if s.conn == nil {
		return s.records(time.Now())
	}
	for _, t := range s.turns[1:] {
		t.b.SetStatus(http.StatusSwitchingProtocols)
	}
	stop := context.AfterFunc(ctx, func() { s.conn.Close() })
	defer stop()
	s.w = &wsWriter{conn: s.conn}
	sent := make(chan struct{})
	go func() { defer close(sent); s.send(ctx) }()
	end := s.read(ctx)
	close(s.stopped)
	if s.failed() {
		s.conn.Close() // unblocks a sender stuck on a dead connection
	}
	<-sent
	if !s.failed() {
		if req.Duplex {
			s.w.writeJSON(map[string]string{"type": "session.close"})
		}
		s.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	}
	s.conn.Close()
	return s.records(end)
}

// failed reports whether a turn failed: the session is over.
func (s *rtSession) failed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.turns {
		if t.b.Failed() {
			return true
		}
	}
	return false
}

// records finishes the turns that started; one cut short fails as the session did.
func (s *rtSession) records(end time.Time) []*record.Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	var why *record.Error
	for _, t := range s.turns {
		if why = t.b.Err(); why != nil {
			break
		}
	}
	var out []*record.Record
	completed := 0
	for i, t := range s.turns {
		if !t.started {
			break
		}
		if !t.finished && !t.b.Failed() {
			if why != nil {
				t.b.Fail(why.Kind, "the session ended: "+why.Message)
			} else {
				t.b.Fail(record.KindTruncated, "the session ended before the turn's response")
			}
		}
		t.b.SetTurn(record.Turn{Session: s.id, Index: i, Lane: s.req.Lane, Duplex: s.req.Duplex,
			Speech: speechSeconds(s.req.Turns[i]), BargeIn: t.bargeIn, Outcome: t.outcome})
		t.b.SetBytes(t.sent, t.recv)
		at := end
		if t.finished {
			at = t.end
		}
		r := t.b.Finish(at)
		if r.OK() {
			completed++
		}
		out = append(out, r)
	}
	last := out[len(out)-1].Realtime
	last.Last, last.Completed, last.Planned = true, completed, len(s.turns)
	return out
}

func speechSeconds(t RealtimeTurn) float64 {
	return t.Format.Seconds(t.Format.Frames(int64(len(t.Audio))))
}

// send streams each turn: it waits for the previous response to end (or, for a
// barge-in, to have played BargeAfter), appends the speech paced, ends it with a commit
// (or VAD silence) and marks the end of speech. It stops quietly when the session ends
// first: the reader says why.
func (s *rtSession) send(ctx context.Context) {
	if !s.write(0, s.sessionUpdate()) {
		return
	}
	for i, turn := range s.req.Turns {
		if i > 0 && !s.wait(ctx, i) {
			return
		}
		if !s.speak(ctx, i, turn) {
			return
		}
	}
}

// wait holds turn i until it may start, reporting false when the session ended.
func (s *rtSession) wait(ctx context.Context, i int) bool {
	prev, turn := s.turns[i-1], s.req.Turns[i]
	gate := prev.ended
	if turn.BargeIn {
		gate = prev.audible
	}
	if !s.until(ctx, gate, 0) {
		return false
	}
	if turn.BargeIn {
		// prev.ended cuts the wait: nothing is left to talk over.
		if turn.BargeAfter > 0 && !s.until(ctx, prev.ended, turn.BargeAfter) {
			return false
		}
	} else {
		// A listener speaks once the answer has played.
		s.mu.Lock()
		rest := time.Until(prev.playEnd)
		s.mu.Unlock()
		if rest > 0 && !s.until(ctx, nil, rest) {
			return false
		}
	}
	now := time.Now()
	s.mu.Lock()
	t := s.turns[i]
	t.started = true
	t.b.Rebase(now)
	t.bargeIn = !prev.finished || now.Before(prev.playEnd)
	s.mu.Unlock()
	return true
}

// until waits for ch or, when after > 0, that long (whichever is first), reporting
// false when the session ended first.
func (s *rtSession) until(ctx context.Context, ch <-chan struct{}, after time.Duration) bool {
	var timer <-chan time.Time
	if after > 0 {
		tm := time.NewTimer(after)
		defer tm.Stop()
		timer = tm.C
	}
	select {
	case <-ch:
	case <-timer:
	case <-s.stopped:
		return false
	case <-ctx.Done():
		return false
	}
	return true
}

// speak streams turn i's speech and ends it.
func (s *rtSession) speak(ctx context.Context, i int, turn RealtimeTurn) bool {
	if s.req.Lane != record.RealtimeOpenAI && !s.write(i, map[string]any{"type": "input_audio_buffer.commit"}) {
		// vLLM's lanes start a turn's generation with a commit that is not final.
		return false
	}
	if !s.stream(ctx, i, turn.Audio, turn.Format, nil) {
		return false
	}
	s.endSpeech(i)
	if !s.req.VAD {
		if !s.write(i, map[string]any{"type": "input_audio_buffer.commit", "final": true}) {
			return false
		}
		if s.req.ResponseCreate && !s.write(i, map[string]any{"type": "response.create"}) {
			return false
		}
		return true
	}
	silence := make([]byte, turn.Format.Frames(int64(turn.Silence.Seconds()*float64(turn.Format.SampleRate)))*int64(turn.Format.FrameSize()))
	return s.stream(ctx, i, silence, turn.Format, s.turns[i].audible)
}

// stream appends pcm in chunks, paced by Speed against absolute deadlines so write
// overheads do not add up; quit ends it early (VAD silence once the response started).
func (s *rtSession) stream(ctx context.Context, i int, pcm []byte, f wav.Format, quit <-chan struct{}) bool {
	step := int(f.Frames(int64(s.req.Chunk.Seconds()*float64(f.SampleRate)*float64(f.FrameSize())))) * f.FrameSize()
	step = max(step, f.FrameSize(), 2)
	deadline := time.Now()
	for off := 0; off < len(pcm); off += step {
		piece := pcm[off:min(off+step, len(pcm))]
		if s.req.Speed > 0 {
			deadline = deadline.Add(time.Duration(f.Seconds(f.Frames(int64(len(piece)))) / s.req.Speed * float64(time.Second)))
			select {
			case <-time.After(time.Until(deadline)):
			case <-quit:
				return true
			case <-s.stopped:
				return false
			case <-ctx.Done():
				return false
			}
		}
		ev := map[string]any{"type": "input_audio_buffer.append", "audio": base64.StdEncoding.EncodeToString(piece)}
		if s.req.Lane == record.RealtimeOpenAI {
			ev["sample_rate_hz"] = f.SampleRate // vLLM-Omni's extension; OpenAI ignores it
		}
		if !s.write(i, ev) {
			return false
		}
	}
	return true
}

// endSpeech marks turn i's end of speech, where its record starts, and lets a stalled
// server be noticed from now on.
func (s *rtSession) endSpeech(i int) {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.turns[i]
	t.speechEnd = now
	t.b.Rebase(now)
	s.deadline(now)
}

// deadline bounds the next read by the stall timeout while a response is due; while
// the user speaks a server is silent, so there is none. Called with mu held.
func (s *rtSession) deadline(now time.Time) {
	if s.req.StallTimeout <= 0 {
		return
	}
	for _, t := range s.turns {
		if !t.speechEnd.IsZero() && !t.finished {
			s.conn.SetReadDeadline(now.Add(s.req.StallTimeout))
			return
		}
	}
	s.conn.SetReadDeadline(time.Time{})
}

func (s *rtSession) write(i int, v any) bool {
	n := s.w.n
	if s.w.writeJSON(v) != nil {
		return false
	}
	s.mu.Lock()
	s.turns[i].sent += s.w.n - n
	s.mu.Unlock()
	return true
}

// sessionUpdate is the lane's session.update: vLLM's names the model at the top level,
// OpenAI's holds a session object.
func (s *rtSession) sessionUpdate() map[string]any {
	if s.req.Lane != record.RealtimeOpenAI {
		ev := map[string]any{}
		for k, v := range s.req.Session {
			ev[k] = v
		}
		ev["type"], ev["model"] = "session.update", s.req.Model
		return ev
	}
	session := map[string]any{"model": s.req.Model, "input_audio_format": "pcm16", "output_audio_format": "pcm16", "turn_detection": nil}
	if s.req.VAD {
		session["turn_detection"] = map[string]any{"type": "server_vad"}
	}
	for k, v := range s.req.Session {
		session[k] = v
	}
	return map[string]any{"type": "session.update", "session": session}
}

// read consumes server messages until every turn finished or the session failed, and
// returns the arrival of the last message.
func (s *rtSession) read(ctx context.Context) time.Time {
	for {
		typ, data, err := s.conn.ReadMessage()
		t := time.Now()
		s.mu.Lock()
		cur := s.current()
		cur.recv += int64(len(data))
		s.mu.Unlock()
		if err != nil {
			kind, msg := readFailure(ctx, err, s.req.StallTimeout, s.req.Limits.Event, "the turn's response")
			s.fail(cur, kind, msg)
			return t
		}
		if s.req.OnEvent != nil {
			s.req.OnEvent(t, data)
		}
		if typ != websocket.TextMessage {
			s.fail(cur, record.KindMalformed, "a binary websocket message: realtime events are JSON text")
			return t
		}
		ev, err := parseRealtimeEvent(data)
		if err != nil {
			s.fail(cur, record.KindMalformed, fmt.Sprintf("websocket message: %v", err))
			return t
		}
		if !s.event(t, &ev) {
			return t
		}
	}
}

// current is the turn events belong to: the oldest whose speech ended and whose
// response has not, else the latest that started. Called with mu held.
func (s *rtSession) current() *rtTurn {
	latest := s.turns[0]
	for _, t := range s.turns {
		if !t.started {
			break
		}
		latest = t
		if !t.speechEnd.IsZero() && !t.finished {
			return t
		}
	}
	return latest
}

func (s *rtSession) fail(t *rtTurn, kind, msg string) {
	s.mu.Lock()
	t.b.Fail(kind, msg)
	s.mu.Unlock()
}

// event takes one event and reports whether to keep reading.
func (s *rtSession) event(at time.Time, ev *rtEvent) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.deadline(at)
	// Text and audio before the end of the speech are placed at 0 and flagged by Rebase.
	t := s.current()
	switch ev.kind() {
	case rtUnknown:
		t.b.Flag(record.AnomalyUnknownEvent, fmt.Sprintf("server event type %.60q is not one omnik knows; ignored", ev.Type))
	case rtSessionCreated:
		if ev.Session != nil && ev.Session.ID != "" {
			s.id = ev.Session.ID
		}
	case rtError:
		t.b.Fail(record.KindStreamError, "error event: "+ev.errorMessage())
		return false
	case rtText:
		t.b.OnTextChunk(at, ev.Delta, nil)
	case rtAudio:
		return s.audio(at, t, ev)
	case rtTextDone:
		if ev.Usage != nil {
			t.b.OnUsage(*ev.Usage)
		}
		if s.req.Lane == record.RealtimeASR {
			return s.finish(t, at, record.TurnCompleted)
		}
	case rtAudioDone:
		if !t.created {
			return s.finish(t, at, record.TurnCompleted)
		}
	case rtCreated:
		t.created = true
		if ev.Response != nil {
			t.b.SetRequestID(ev.Response.ID)
		}
	case rtListen:
		if !t.created {
			return s.finish(t, at, record.TurnListen)
		}
	case rtDone:
		return s.done(at, t, ev.Response)
	}
	return !t.b.Failed()
}

// audio takes an audio delta. Called with mu held.
func (s *rtSession) audio(at time.Time, t *rtTurn, ev *rtEvent) bool {
	f := s.req.Output
	if ev.SampleRate > 0 {
		f.SampleRate = ev.SampleRate
	}
	p, err := chunk.DecodeAudio(ev.payload(), chunk.AudioSpec{Format: "pcm", Raw: f, Keep: s.req.KeepAudio})
	if err != nil {
		t.b.Fail(audioKind(err), ev.Type+": "+err.Error())
		return false
	}
	t.b.OnAudioChunk(at, "pcm", p)
	if p.Bytes > 0 {
		if t.firstAudio.IsZero() {
			t.firstAudio, t.playEnd = at, at
			close(t.audible)
		}
		if s.req.Speed > 0 {
			// The listener plays it at the script's pace.
			t.playEnd = t.playEnd.Add(time.Duration(p.Seconds() / s.req.Speed * float64(time.Second)))
		}
	}
	return !t.b.Failed()
}

// done takes response.done: completed, cancelled (a barge-in), or failed. Called with
// mu held.
func (s *rtSession) done(at time.Time, t *rtTurn, resp *rtResponse) bool {
	status, outcome := "", record.TurnCompleted
	if resp != nil {
		status = resp.Status
		if resp.Usage != nil {
			t.b.OnUsage(*resp.Usage)
		}
	}
	switch status {
	case "", "completed":
	case "cancelled":
		outcome = record.TurnCancelled
	default:
		why := ""
		if resp.StatusDetails != nil {
			why = resp.StatusDetails.Reason
			if e := rawText(resp.StatusDetails.Error); e != "" {
				why += ": " + e
			}
		}
		t.b.Fail(record.KindStreamError, fmt.Sprintf("response.done with status %.40q %s", status, why))
		return false
	}
	return s.finish(t, at, outcome)
}

// finish ends turn t's response at at and reports whether the session goes on: until
// the last turn finished. Called with mu held.
func (s *rtSession) finish(t *rtTurn, at time.Time, outcome string) bool {
	if t.finished {
		return true
	}
	t.finished, t.end, t.outcome = true, at, outcome
	close(t.ended)
	return !s.turns[len(s.turns)-1].finished
}
