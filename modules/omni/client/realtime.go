package client

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gorilla/websocket"

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
