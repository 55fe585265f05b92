package client

import (
	"context"
	"fmt"
	"time"

	"github.com/gorilla/websocket"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// The reading side of a realtime session: the goroutine that times every server event
// and gives it to its turn.
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
