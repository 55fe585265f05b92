package client

import (
	"context"
	"encoding/base64"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/record"
	"github.com/omnik-dev/omnik/modules/omni/wav"
)

// The sending side of a realtime session: one goroutine that speaks each turn.
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
	silence := make([]byte, int64(turn.Silence.Seconds()*float64(turn.Format.SampleRate))*int64(turn.Format.FrameSize()))
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
