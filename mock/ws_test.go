package mock

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

func dialSpeech(t *testing.T, base string, header ...string) *websocket.Conn {
	t.Helper()
	h := map[string][]string{}
	for i := 0; i+1 < len(header); i += 2 {
		h[header[i]] = []string{header[i+1]}
	}
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(base, "http")+"/v1/audio/speech/stream", h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	return c
}

// wsMsg is one server message: JSON (typ set) or binary audio.
type wsMsg struct {
	typ   string
	json  map[string]any
	audio []byte
}

// readUntil collects messages up to and including one of type stop.
func readUntil(t *testing.T, c *websocket.Conn, stop string) []wsMsg {
	t.Helper()
	var out []wsMsg
	for {
		kind, b, err := c.ReadMessage()
		if err != nil {
			t.Fatalf("after %d messages: %v", len(out), err)
		}
		if kind == websocket.BinaryMessage {
			out = append(out, wsMsg{audio: b})
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			out = append(out, wsMsg{typ: "<malformed>"})
			continue
		}
		out = append(out, wsMsg{typ: m["type"].(string), json: m})
		if m["type"] == stop {
			return out
		}
	}
}

func send(t *testing.T, c *websocket.Conn, v any) {
	t.Helper()
	if err := c.WriteJSON(v); err != nil {
		t.Fatal(err)
	}
}

func TestSpeechWebsocketSessionFlow(t *testing.T) {
	t.Parallel()
	_, u := startServer(t)
	c := dialSpeech(t, u)
	send(t, c, map[string]any{"type": "session.config", "response_format": "pcm", "stream_audio": true,
		"split_granularity": "sentence"})
	send(t, c, map[string]any{"type": "input.text", "text": "First sentence. Second"})
	send(t, c, map[string]any{"type": "input.text", "text": " sentence here."})
	send(t, c, map[string]any{"type": "input.done"})
	msgs := readUntil(t, c, "session.done")
	var order []string
	for _, m := range msgs {
		if m.audio != nil {
			if len(m.audio)%2 != 0 {
				t.Fatal("odd PCM frame")
			}
			if order[len(order)-1] != "audio" {
				order = append(order, "audio")
			}
			continue
		}
		order = append(order, m.typ)
	}
	want := "audio.start audio audio.done audio.start audio audio.done session.done"
	if strings.Join(order, " ") != want {
		t.Fatalf("messages = %v", order)
	}
	start := msgs[0].json
	if start["sentence_text"] != "First sentence." || start["sample_rate"] != 24000.0 || start["channels"] != 1.0 || start["format"] != "pcm" {
		t.Fatalf("audio.start = %v", start)
	}
	done := msgs[len(msgs)-1].json
	if done["utterance_index"] != 0.0 || done["total_sentences"] != 2.0 {
		t.Fatalf("session.done = %v", done)
	}

	// The connection stays open for the next utterance; without
	// stream_audio the whole sentence arrives as one WAV frame.
	send(t, c, map[string]any{"type": "session.config", "response_format": "wav"})
	send(t, c, map[string]any{"type": "input.text", "text": "Again"})
	send(t, c, map[string]any{"type": "input.done"})
	msgs = readUntil(t, c, "session.done")
	if len(msgs) != 4 || msgs[0].typ != "audio.start" || msgs[1].audio == nil || msgs[2].typ != "audio.done" {
		t.Fatalf("second utterance = %+v", msgs)
	}
	if w := parseWAV(t, msgs[1].audio); int(w.declared) != len(w.pcm) || msgs[2].json["total_bytes"] != float64(len(msgs[1].audio)) {
		t.Fatalf("wav frame declared %d got %d", w.declared, len(w.pcm))
	}
	if msgs[3].json["utterance_index"] != 1.0 {
		t.Fatalf("session.done = %v", msgs[3].json)
	}
	send(t, c, map[string]any{"type": "session.close"})
	if _, _, err := c.ReadMessage(); !websocket.IsCloseError(err, websocket.CloseNormalClosure) {
		t.Fatalf("after session.close: %v", err)
	}
}

func TestSpeechWebsocketErrors(t *testing.T) {
	t.Parallel()
	_, u := startServer(t)
	tests := []struct {
		name  string
		first any
		msg   string
	}{
		{"no config first", map[string]any{"type": "input.text", "text": "x"}, "Expected session.config, got: input.text"},
		{"unknown model", map[string]any{"type": "session.config", "model": "nope"}, "The model `nope` does not exist."},
		{"stream_audio needs pcm", map[string]any{"type": "session.config", "stream_audio": true}, "requires response_format='pcm'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := dialSpeech(t, u)
			send(t, c, tc.first)
			msgs := readUntil(t, c, "error")
			if m := msgs[0].json["message"].(string); !strings.Contains(m, tc.msg) {
				t.Fatalf("error = %q", m)
			}
			// A failed handshake closes the connection.
			if _, _, err := c.ReadMessage(); err == nil {
				t.Fatal("connection still open")
			}
		})
	}
}

func dialSpeechErr(base string, header ...string) (*websocket.Conn, *http.Response, error) {
	h := http.Header{}
	for i := 0; i+1 < len(header); i += 2 {
		h.Set(header[i], header[i+1])
	}
	return websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(base, "http")+"/v1/audio/speech/stream", h)
}
