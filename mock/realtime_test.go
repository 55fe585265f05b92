package mock

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

func dialRealtime(t *testing.T, base, path string, header http.Header) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	c, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(base, "http")+path, header)
	if err == nil {
		t.Cleanup(func() { _ = c.Close() })
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	}
	return c, resp, err
}

// types lists the message types in order, deltas left out (how text and audio
// interleave is the pipeline's timing), then how many audio and text deltas came.
func types(msgs []wsMsg) string {
	var out []string
	audio, text := 0, 0
	for _, m := range msgs {
		switch {
		case strings.HasSuffix(m.typ, "audio.delta"):
			audio++
		case strings.HasSuffix(m.typ, ".delta"):
			text++
		default:
			out = append(out, m.typ)
		}
	}
	return fmt.Sprintf("%s; %d audio, text %v", strings.Join(out, " "), audio, text > 0)
}

func speechB64(n int, v byte) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = v
	}
	return base64.StdEncoding.EncodeToString(b)
}

// Each lane answers a turn with its own events, text and audio interleaved as the
// pipeline writes them, and the simulator's unknown event first.
func TestRealtimeLanesSpeakTheirProtocols(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, lane, path string
		update           map[string]any
		open             bool // vLLM's non-final commit
		stop, want       string
	}{
		{"vllm-omni", "", "/v1/realtime", map[string]any{"type": "session.update", "model": ""}, true, "response.audio.done",
			"session.created omnik.mock.turn transcription.done response.audio.done; 5 audio, text true"},
		{"openai", RealtimeLaneOpenAI, "/v1/realtime", map[string]any{"type": "session.update", "session": map[string]any{"model": ""}}, false, "response.output_audio.done",
			"session.created session.updated input_audio_buffer.committed omnik.mock.turn transcription.done response.output_audio.done; 5 audio, text true"},
		{"duplex", "", "/v1/realtime?duplex=1", map[string]any{"type": "session.update", "session": map[string]any{"model": ""}}, false, "rate_limits.updated",
			"session.created session.updated input_audio_buffer.committed omnik.mock.turn response.created response.output_audio.done response.output_audio_transcript.done response.done rate_limits.updated; 5 audio, text true"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, base := startServer(t, WithSpeed(50), WithProfile("qwen3-omni"), WithRealtimeLane(tc.lane))
			c, _, err := dialRealtime(t, base, tc.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			send(t, c, tc.update)
			if tc.open {
				send(t, c, map[string]any{"type": "input_audio_buffer.commit"})
			}
			send(t, c, map[string]any{"type": "input_audio_buffer.append", "audio": speechB64(3200, 1)})
			send(t, c, map[string]any{"type": "input_audio_buffer.commit", "final": true})
			if got := types(readUntil(t, c, tc.stop)); got != tc.want {
				t.Errorf("events:\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// In the duplex lane speech over a response cancels it; with server VAD, silence after
// speech ends the turn without a commit.
func TestRealtimeDuplexBargeInAndVAD(t *testing.T) {
	t.Parallel()
	_, base := startServer(t, WithSpeed(1), WithProfile("qwen3-omni"))
	c, _, err := dialRealtime(t, base, "/v1/duplex", nil)
	if err != nil {
		t.Fatal(err)
	}
	send(t, c, map[string]any{"type": "session.update", "session": map[string]any{"model": "", "turn_detection": map[string]any{"type": "server_vad"}}})
	send(t, c, map[string]any{"type": "input_audio_buffer.append", "audio": speechB64(3200, 1)})
	send(t, c, map[string]any{"type": "input_audio_buffer.append", "audio": speechB64(3200, 0)})
	readUntil(t, c, "response.output_audio.delta")
	send(t, c, map[string]any{"type": "input_audio_buffer.append", "audio": speechB64(3200, 1)})
	msgs := readUntil(t, c, "response.done")
	done := msgs[len(msgs)-1].json["response"].(map[string]any)
	if done["status"] != "cancelled" || done["status_details"].(map[string]any)["reason"] != "barge_in" {
		t.Errorf("response.done after a barge-in = %v", done)
	}
}

// A status fault refuses the handshake; an unknown model and an unknown event are
// error events in the lane's shape, and the session goes on.
func TestRealtimeRefusals(t *testing.T) {
	t.Parallel()
	_, base := startServer(t, WithSpeed(50))
	if _, resp, err := dialRealtime(t, base, "/v1/realtime", http.Header{FaultHeader: {"http503"}}); err == nil || resp == nil || resp.StatusCode != 503 {
		t.Fatalf("handshake with an http503 fault: %v, %v", err, resp)
	}
	c, _, err := dialRealtime(t, base, "/v1/realtime", nil)
	if err != nil {
		t.Fatal(err)
	}
	readUntil(t, c, "session.created")
	send(t, c, map[string]any{"type": "session.update", "model": "nope"})
	if m := readUntil(t, c, "error"); m[0].json["code"] != "model_not_found" || m[0].json["error"] != "The model `nope` does not exist." {
		t.Errorf("unknown model: %v", m[0].json)
	}
	send(t, c, map[string]any{"type": "what"})
	if m := readUntil(t, c, "error"); m[0].json["code"] != "unknown_event" {
		t.Errorf("unknown event: %v", m[0].json)
	}
}
