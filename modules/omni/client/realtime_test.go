package client

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/omnik-dev/omnik/modules/omni/record"
	"github.com/omnik-dev/omnik/modules/omni/wav"
)

// rtServer answers each commit with the next turn's messages and records what the
// client sent. A nil turn closes the connection normally instead.
type rtServer struct {
	turns [][]wsMsg
	mu    sync.Mutex
	got   []map[string]any
}

func (s *rtServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	conn, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer conn.Close()
	turn := 0
	for turn < len(s.turns) {
		var m map[string]any
		if conn.ReadJSON(&m) != nil {
			return
		}
		s.mu.Lock()
		s.got = append(s.got, m)
		s.mu.Unlock()
		if m["type"] != "input_audio_buffer.commit" || m["final"] != true {
			continue
		}
		if s.turns[turn] == nil {
			conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""))
			return
		}
		for _, msg := range s.turns[turn] {
			if msg.bin != nil {
				conn.WriteMessage(websocket.BinaryMessage, msg.bin)
			} else {
				conn.WriteMessage(websocket.TextMessage, []byte(msg.text))
			}
		}
		turn++
	}
	// Wait for the client's close.
	for {
		if _, _, err := conn.ReadMessage(); err != nil {
			return
		}
	}
}

func (s *rtServer) sent() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, m := range s.got {
		typ := m["type"].(string)
		if m["final"] == true {
			typ += "(final)"
		}
		if len(out) > 0 && typ == "input_audio_buffer.append" && out[len(out)-1] == typ {
			continue
		}
		out = append(out, typ)
	}
	return out
}

// realtime runs a session of turns of 100 ms of 16 kHz speech against s.
func realtime(t *testing.T, s *rtServer, req RealtimeRequest, turns int) []*record.Record {
	t.Helper()
	srv := serve(t, s)
	req.URL = "ws" + strings.TrimPrefix(srv.URL, "http") + "/v1/realtime"
	if req.Lane == "" {
		req.Lane = record.RealtimeOmni
	}
	req.Model, req.Output, req.Chunk = "m", wav.PCM16(24000, 1), 20*time.Millisecond
	for range turns {
		req.Turns = append(req.Turns, RealtimeTurn{Audio: make([]byte, 3200), Format: wav.PCM16(16000, 1)})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return Realtime(ctx, websocket.DefaultDialer, req)
}

func msgs(texts ...string) []wsMsg {
	out := make([]wsMsg, len(texts))
	for i, s := range texts {
		out[i] = wsMsg{text: s}
	}
	return out
}

// 0.5 s at 16 kHz: the rate comes from sample_rate_hz, not the default.
var pcm16k = `"` + b64(make([]byte, 16000)) + `"`

func TestRealtimeLanesEndTheirTurns(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		lane    string
		turn    []wsMsg
		sent    string
		outcome string
		seconds float64
		id      string
		tokens  int
	}{
		{"vllm-omni", record.RealtimeOmni, msgs(`{"type":"session.created","id":"s1"}`,
			`{"type":"transcription.delta","delta":"Hi there"}`,
			`{"type":"response.audio.delta","audio":`+pcm16k+`,"format":"pcm16","sample_rate_hz":16000}`,
			`{"type":"transcription.done","text":"Hi there","usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`,
			`{"type":"response.audio.done","has_audio":true}`),
			"session.update input_audio_buffer.commit input_audio_buffer.append input_audio_buffer.commit(final)",
			record.TurnCompleted, 0.5, "", 2},
		{"openai GA waits for response.done", record.RealtimeOpenAI, msgs(
			`{"type":"response.created","response":{"id":"resp_1","status":"in_progress"}}`,
			`{"type":"response.output_audio.delta","delta":`+pcm16k+`}`,
			`{"type":"response.output_audio_transcript.delta","delta":"Hi"}`,
			`{"type":"response.output_audio.done"}`,
			`{"type":"response.output_text.delta","delta":" you"}`,
			`{"type":"response.done","response":{"id":"resp_1","status":"completed","usage":{"input_tokens":9,"output_tokens":4,"total_tokens":13}}}`),
			"session.update input_audio_buffer.append input_audio_buffer.commit(final)",
			record.TurnCompleted, 1.0 / 3, "resp_1", 4},
		{"vllm asr ends at transcription.done", record.RealtimeASR, msgs(
			`{"type":"transcription.delta","delta":"hello"}`,
			`{"type":"transcription.done","text":"hello","usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`),
			"session.update input_audio_buffer.commit input_audio_buffer.append input_audio_buffer.commit(final)",
			record.TurnCompleted, 0, "", 1},
		{"duplex listen", record.RealtimeOpenAI, msgs(`{"type":"response.listen","response":{"status":"listening"}}`),
			"session.update input_audio_buffer.append input_audio_buffer.commit(final)",
			record.TurnListen, 0, "", 0},
		{"cancelled", record.RealtimeOpenAI, msgs(`{"type":"response.created","response":{"id":"r"}}`,
			`{"type":"response.done","response":{"id":"r","status":"cancelled","status_details":{"reason":"barge_in"}}}`),
			"session.update input_audio_buffer.append input_audio_buffer.commit(final)",
			record.TurnCancelled, 0, "r", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := &rtServer{turns: [][]wsMsg{tc.turn}}
			recs := realtime(t, s, RealtimeRequest{Lane: tc.lane}, 1)
			if len(recs) != 1 {
				t.Fatalf("%d records, want 1", len(recs))
			}
			r := recs[0]
			if !r.OK() {
				t.Fatalf("failed: %v", r.Err)
			}
			if got := strings.Join(s.sent(), " "); got != tc.sent {
				t.Errorf("client sent %s, want %s", got, tc.sent)
			}
			rt := r.Realtime
			if rt.Outcome != tc.outcome || !rt.Last || rt.Completed != 1 || rt.Planned != 1 || rt.Index != 0 || rt.Lane != tc.lane {
				t.Errorf("turn = %+v, want outcome %s, last of 1", rt, tc.outcome)
			}
			if r.Audio.Seconds != tc.seconds || r.RequestID != tc.id || r.Usage.Completion != tc.tokens {
				t.Errorf("audio %v s, id %q, tokens %d; want %v s, %q, %d", r.Audio.Seconds, r.RequestID, r.Usage.Completion, tc.seconds, tc.id, tc.tokens)
			}
			if rt.Speech != 0.1 || r.Endpoint != record.EndpointRealtime || r.Status != http.StatusSwitchingProtocols {
				t.Errorf("speech %v s, endpoint %s, status %d", rt.Speech, r.Endpoint, r.Status)
			}
		})
	}
}

func TestRealtimeVLLMSessionIDIsKept(t *testing.T) {
	t.Parallel()
	s := &rtServer{turns: [][]wsMsg{msgs(`{"type":"session.created","session":{"id":"sess_9"}}`, `{"type":"response.audio.done","has_audio":false}`),
		msgs(`{"type":"response.audio.done","has_audio":false}`)}}
	recs := realtime(t, s, RealtimeRequest{}, 2)
	if len(recs) != 2 || recs[0].Realtime.Session != "sess_9" || recs[1].Realtime.Session != "sess_9" || recs[1].Realtime.Index != 1 {
		t.Fatalf("records: %+v %+v", recs[0].Realtime, recs[len(recs)-1].Realtime)
	}
	if recs[0].Realtime.Last || !recs[1].Realtime.Last || recs[1].Realtime.Completed != 2 {
		t.Errorf("only the last record carries the session: %+v %+v", recs[0].Realtime, recs[1].Realtime)
	}
}

// Every way a session breaks fails the turn in progress with its reason; the turns
// after it never start.
func TestRealtimeFailuresNameTheirKind(t *testing.T) {
	t.Parallel()
	done := `{"type":"response.audio.done","has_audio":false}`
	for _, tc := range []struct {
		name  string
		turns [][]wsMsg
		limit int
		kind  string
		msg   string
		recs  int
	}{
		{"vllm error string", [][]wsMsg{msgs(done), msgs(`{"type":"error","error":"boom","code":"processing_error"}`)}, 0,
			record.KindStreamError, "boom (code processing_error)", 2},
		{"openai error object", [][]wsMsg{msgs(`{"type":"error","error":{"type":"server_error","code":"x","message":"bad"}}`)}, 0,
			record.KindStreamError, "bad", 1},
		{"response failed", [][]wsMsg{msgs(`{"type":"response.created","response":{"id":"r"}}`,
			`{"type":"response.done","response":{"status":"failed","status_details":{"reason":"error","error":{"message":"oom"}}}}`)}, 0,
			record.KindStreamError, `status "failed" error: oom`, 1},
		{"not json", [][]wsMsg{msgs(`{"type":`)}, 0, record.KindMalformed, "websocket message", 1},
		{"no type", [][]wsMsg{msgs(`{"delta":"x"}`)}, 0, record.KindMalformed, "without a type", 1},
		{"binary", [][]wsMsg{{{bin: []byte{1, 2}}}}, 0, record.KindMalformed, "binary", 1},
		{"bad audio", [][]wsMsg{msgs(`{"type":"response.audio.delta","audio":"abc"}`)}, 0, record.KindMalformed, "response.audio.delta", 1},
		{"oversized", [][]wsMsg{msgs(`{"type":"transcription.delta","delta":"` + strings.Repeat("x", 600) + `"}`)}, 512,
			record.KindOversized, "maxEventBytes", 1},
		{"closed", [][]wsMsg{msgs(done), nil}, 0, record.KindTruncated, "before the turn's response", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := &rtServer{turns: tc.turns}
			recs := realtime(t, s, RealtimeRequest{Limits: Limits{Event: tc.limit}}, 3)
			if len(recs) != tc.recs {
				t.Fatalf("%d records, want %d", len(recs), tc.recs)
			}
			last := recs[len(recs)-1]
			if last.Err == nil || last.Err.Kind != tc.kind || !strings.Contains(last.Err.Message, tc.msg) {
				t.Fatalf("error = %v, want %s containing %q", last.Err, tc.kind, tc.msg)
			}
			if rt := last.Realtime; !rt.Last || rt.Completed != tc.recs-1 || rt.Planned != 3 {
				t.Errorf("session outcome = %+v, want %d of 3 completed", rt, tc.recs-1)
			}
		})
	}
}

func TestRealtimeUnknownEventsAreCountedAndIgnored(t *testing.T) {
	t.Parallel()
	s := &rtServer{turns: [][]wsMsg{msgs(`{"type":"vendor.thing"}`, `{"type":"vendor.thing"}`, `{"type":"rate_limits.updated"}`,
		`{"type":"response.audio.done","has_audio":false}`)}}
	r := realtime(t, s, RealtimeRequest{}, 1)[0]
	if !r.OK() {
		t.Fatal(r.Err)
	}
	if a := anomaly(r, record.AnomalyUnknownEvent); a == nil || a.Count != 2 || len(r.Anomalies) != 1 {
		t.Errorf("anomalies = %+v, want unknown_event twice", r.Anomalies)
	}
}

// With server VAD the client never commits: it streams the turn's silence until the
// response starts, and the turn's record starts at the end of the speech.
func TestRealtimeVADStreamsSilenceWithoutCommit(t *testing.T) {
	t.Parallel()
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer conn.Close()
		var m map[string]any
		silent := 0
		for silent < 3 && conn.ReadJSON(&m) == nil {
			if m["type"] == "input_audio_buffer.commit" {
				conn.WriteMessage(websocket.TextMessage, []byte(`{"type":"error","error":"commit with VAD"}`))
			}
			if a, _ := m["audio"].(string); m["type"] == "input_audio_buffer.append" && a == b64(make([]byte, 640)) {
				silent++
			}
		}
		conn.WriteMessage(websocket.TextMessage, []byte(`{"type":"response.output_audio.delta","delta":`+pcm16k+`,"sample_rate_hz":16000}`))
		conn.WriteMessage(websocket.TextMessage, []byte(`{"type":"response.output_audio.done"}`))
		for conn.ReadJSON(&m) == nil {
		}
	}))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	speech := make([]byte, 640)
	speech[0] = 1
	recs := Realtime(ctx, websocket.DefaultDialer, RealtimeRequest{
		URL: "ws" + strings.TrimPrefix(srv.URL, "http"), Lane: record.RealtimeOpenAI, VAD: true, Model: "m",
		Output: wav.PCM16(24000, 1), Chunk: 20 * time.Millisecond,
		Turns: []RealtimeTurn{{Audio: speech, Format: wav.PCM16(16000, 1), Silence: time.Second}},
	})
	if r := recs[0]; !r.OK() || r.Audio.Seconds != 0.5 || r.Realtime.Outcome != record.TurnCompleted {
		t.Fatalf("record: err %v, audio %v s, turn %+v", r.Err, r.Audio.Seconds, r.Realtime)
	}
}

// With server VAD a turn's speech is followed by Silence of zero samples at its format:
// 1 s of 16 kHz PCM16 is 32000 bytes mono and 64000 stereo.
func TestRealtimeVADSilenceIsTheScriptsLength(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		channels int
		want     int
	}{{1, 32000}, {2, 64000}} {
		f := wav.PCM16(16000, tc.channels)
		speech := make([]byte, 640)
		for i := range speech {
			speech[i] = 1
		}
		got := make(chan int, 1)
		srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			conn, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
			if err != nil {
				return
			}
			defer conn.Close()
			silence, answered := 0, false
			var m map[string]any
			for conn.ReadJSON(&m) == nil {
				a, _ := m["audio"].(string)
				b, _ := base64.StdEncoding.DecodeString(a)
				if len(b) > 0 && b[0] == 0 {
					silence += len(b)
				}
				// Answer once the whole silence arrived; a short one is answered by the stall timeout.
				if !answered && silence >= tc.want {
					answered = true
					conn.WriteMessage(websocket.TextMessage, []byte(`{"type":"response.output_audio.done"}`))
				}
			}
			got <- silence
		}))
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		Realtime(ctx, websocket.DefaultDialer, RealtimeRequest{
			URL: "ws" + strings.TrimPrefix(srv.URL, "http"), Lane: record.RealtimeOpenAI, VAD: true, Model: "m",
			Output: wav.PCM16(24000, 1), Chunk: 20 * time.Millisecond, StallTimeout: 2 * time.Second,
			Turns: []RealtimeTurn{{Audio: speech, Format: f, Silence: time.Second}},
		})
		if n := <-got; n != tc.want {
			t.Errorf("%d channels: %d bytes of silence, want %d", tc.channels, n, tc.want)
		}
	}
}

// The stall timeout runs only while an answer is due: a server is silent while the user
// speaks, however long that takes, but not after the commit.
func TestRealtimeStallTimeoutWaitsOutTheSpeech(t *testing.T) {
	t.Parallel()
	done := msgs(`{"type":"response.audio.done","has_audio":false}`)
	s := &rtServer{turns: [][]wsMsg{done, {}}}
	srv := serve(t, s)
	speech := RealtimeTurn{Audio: make([]byte, 48000), Format: wav.PCM16(16000, 1)} // 1.5 s, at real time
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	recs := Realtime(ctx, websocket.DefaultDialer, RealtimeRequest{
		URL: "ws" + strings.TrimPrefix(srv.URL, "http"), Lane: record.RealtimeOmni, Model: "m", Output: wav.PCM16(24000, 1),
		Chunk: 100 * time.Millisecond, Speed: 1, StallTimeout: 500 * time.Millisecond, Turns: []RealtimeTurn{speech, speech},
	})
	if len(recs) != 2 || !recs[0].OK() {
		t.Fatalf("the first turn, its speech longer than the stall timeout: %d records, %v", len(recs), recs[0].Err)
	}
	if e := recs[1].Err; e == nil || e.Kind != record.KindStall {
		t.Errorf("the second turn, never answered: %v, want stall_timeout", e)
	}
}
