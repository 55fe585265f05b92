package mock

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// audioChat streams text and WAV audio with usage, the richest stream.
const audioChat = `{"messages":[{"role":"user","content":"hi"}],"stream":true,"max_tokens":8,"stream_options":{"include_usage":true}}`

func TestFaultsAreObservedByAClient(t *testing.T) {
	t.Parallel()
	_, u := startServer(t)
	tests := []struct {
		fault string
		check func(t *testing.T, resp *http.Response, sent time.Time)
	}{
		{"http429", statusFault(429)},
		{"http500", statusFault(500)},
		{"http503", statusFault(503)},
		{"error-event,after=3", func(t *testing.T, resp *http.Response, _ time.Time) {
			evs := mustSSE(t, resp)
			var e errorBody
			if len(evs) != 5 || evs[4].data != "[DONE]" || json.Unmarshal([]byte(evs[3].data), &e) != nil || e.Error.Code != 500 {
				t.Fatalf("want role, 2 chunks, error, [DONE]; got %d events, 4th %q", len(evs), evs[min(3, len(evs)-1)].data)
			}
		}},
		{"reset,after=2", func(t *testing.T, resp *http.Response, _ time.Time) {
			if _, err := io.ReadAll(resp.Body); err == nil {
				t.Fatal("read the whole body of a reset stream")
			}
		}},
		{"malformed,after=2", func(t *testing.T, resp *http.Response, _ time.Time) {
			evs := mustSSE(t, resp)
			bad := 0
			for _, e := range evs[:len(evs)-1] {
				if !json.Valid([]byte(e.data)) {
					bad++
				}
			}
			if bad != 1 || evs[len(evs)-1].data != "[DONE]" {
				t.Fatalf("malformed events = %d", bad)
			}
		}},
		{"stall,after=2,delay=300ms", func(t *testing.T, resp *http.Response, _ time.Time) {
			evs := mustSSE(t, resp)
			var longest time.Duration
			for i := 1; i < len(evs); i++ {
				longest = max(longest, evs[i].at.Sub(evs[i-1].at))
			}
			if longest < 300*time.Millisecond {
				t.Fatalf("longest gap %v, want a 300ms stall", longest)
			}
		}},
		{"slow-headers,delay=0.3", func(t *testing.T, resp *http.Response, sent time.Time) {
			if d := time.Since(sent); d < 300*time.Millisecond {
				t.Fatalf("headers after %v", d)
			}
			mustSSE(t, resp)
		}},
		{"truncated-wav,after=1", func(t *testing.T, resp *http.Response, _ time.Time) {
			truncated := 0
			for i, c := range parseChunks(t, mustSSE(t, resp)) {
				if c.Modality != "audio" {
					continue
				}
				if w := parseWAV(t, b64(t, c.text())); int(w.declared) != len(w.pcm) {
					truncated++
					if len(w.pcm)%2 == 0 {
						t.Errorf("chunk %d: truncated PCM should end mid-sample", i)
					}
				}
			}
			if truncated != 1 {
				t.Fatalf("truncated chunks = %d", truncated)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.fault, func(t *testing.T) {
			t.Parallel()
			req, _ := http.NewRequest(http.MethodPost, u+chatURL, strings.NewReader(audioChat))
			req.Header.Set(FaultHeader, tc.fault)
			sent := time.Now()
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			tc.check(t, resp, sent)
		})
	}
}

func statusFault(code int) func(*testing.T, *http.Response, time.Time) {
	return func(t *testing.T, resp *http.Response, _ time.Time) {
		if resp.StatusCode != code {
			t.Fatalf("status %d, want %d", resp.StatusCode, code)
		}
		if e := errorOf(t, resp.Body); e.Code != code {
			t.Fatalf("error code %d", e.Code)
		}
	}
}

func TestFaultsOnSpeechAndWebsocket(t *testing.T) {
	t.Parallel()
	_, u := startServer(t)
	// Long enough for several audio chunks, so faults fire mid-stream.
	const input = "Hello there, this sentence is long enough to be spoken in several chunks of audio by the simulated talker."
	t.Run("raw speech error aborts the body", func(t *testing.T) {
		t.Parallel()
		resp := post(t, u+speechURL, `{"input":"`+input+`","stream_format":"audio"}`, FaultHeader, "error-event,after=1")
		if _, err := io.ReadAll(resp.Body); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("read error %v, want unexpected EOF", err)
		}
	})
	t.Run("speech SSE error event replaces done", func(t *testing.T) {
		t.Parallel()
		evs := mustSSE(t, post(t, u+speechURL, `{"input":"`+input+`","stream_format":"sse"}`, FaultHeader, "error-event,after=1"))
		if last := evs[len(evs)-1]; len(evs) != 2 || last.event != "speech.audio.error" {
			t.Fatalf("events = %+v", evs)
		}
	})
	t.Run("websocket error then audio.done with error", func(t *testing.T) {
		t.Parallel()
		c := dialSpeech(t, u, FaultHeader, "error-event,after=1")
		send(t, c, map[string]any{"type": "session.config", "response_format": "pcm", "stream_audio": true})
		send(t, c, map[string]any{"type": "input.text", "text": input})
		send(t, c, map[string]any{"type": "input.done"})
		msgs := readUntil(t, c, "session.done")
		var types []string
		for _, m := range msgs {
			types = append(types, m.typ)
		}
		// audio.start, one frame, error, audio.done{error:true}, session.done
		if strings.Join(types, ",") != "audio.start,,error,audio.done,session.done" || msgs[3].json["error"] != true ||
			msgs[2].json["partial_audio"] != true {
			t.Fatalf("messages = %q", types)
		}
	})
	t.Run("websocket status fault refuses the handshake", func(t *testing.T) {
		t.Parallel()
		_, resp, err := dialSpeechErr(u, FaultHeader, "http503")
		if err == nil || resp == nil || resp.StatusCode != 503 {
			t.Fatalf("dial: %v", err)
		}
	})
}

func TestFaultProbabilityIsSeeded(t *testing.T) {
	t.Parallel()
	pattern := func(seed int64) string {
		_, u := startServer(t, WithSeed(seed), WithSpeed(100), WithFaults(Fault{Kind: FaultHTTP500, Probability: 0.5}))
		var out []byte
		for range 24 {
			resp := post(t, u+chatURL, `{"messages":[{"role":"user","content":"x"}],"modalities":["text"],"max_tokens":1}`)
			out = append(out, '0'+byte(resp.StatusCode/100))
		}
		return string(out)
	}
	a, b := pattern(7), pattern(7)
	if a != b || !strings.Contains(a, "2") || !strings.Contains(a, "5") {
		t.Fatalf("seed 7 gave %s then %s; want the same mix of 200s and 500s", a, b)
	}
}

func TestFaultHeaderThatDoesNotParseIsABadRequest(t *testing.T) {
	t.Parallel()
	_, u := startServer(t)
	resp := post(t, u+chatURL, audioChat, FaultHeader, "meteor")
	if e := errorOf(t, resp.Body); resp.StatusCode != 400 || !strings.Contains(e.Message, "meteor") {
		t.Fatalf("%d %+v", resp.StatusCode, e)
	}
}

func TestFaultsOnSingleBodies(t *testing.T) {
	t.Parallel()
	_, u := startServer(t)
	const chat = `{"messages":[{"role":"user","content":"hi"}],"max_tokens":8}`
	const speech = `{"input":"Hello there.","response_format":"wav"}`
	tests := []struct {
		name, path, body, fault string
		check                   func(t *testing.T, resp *http.Response, b []byte, err error, took time.Duration)
	}{
		{"chat error-event is a 500", chatURL, chat, "error-event", func(t *testing.T, resp *http.Response, b []byte, _ error, _ time.Duration) {
			if resp.StatusCode != 500 || !strings.Contains(string(b), `"code":500`) {
				t.Fatalf("%d %s", resp.StatusCode, b)
			}
		}},
		{"chat reset", chatURL, chat, "reset", func(t *testing.T, _ *http.Response, _ []byte, err error, _ time.Duration) {
			if err == nil {
				t.Fatal("no error from a reset connection")
			}
		}},
		{"chat malformed", chatURL, chat, "malformed", func(t *testing.T, resp *http.Response, b []byte, _ error, _ time.Duration) {
			if resp.StatusCode != 200 || json.Valid(b) {
				t.Fatalf("%d, valid JSON body", resp.StatusCode)
			}
		}},
		{"chat stall", chatURL, chat, "stall,delay=300ms", func(t *testing.T, _ *http.Response, _ []byte, _ error, took time.Duration) {
			if took < 300*time.Millisecond {
				t.Fatalf("answered after %v", took)
			}
		}},
		{"chat truncated-wav", chatURL, chat, "truncated-wav", func(t *testing.T, _ *http.Response, b []byte, _ error, _ time.Duration) {
			var body struct {
				Choices []struct {
					Message struct {
						Audio *struct{ Data string } `json:"audio"`
					} `json:"message"`
				} `json:"choices"`
			}
			_ = json.Unmarshal(b, &body)
			w := parseWAV(t, b64(t, body.Choices[1].Message.Audio.Data))
			if int(w.declared) == len(w.pcm) {
				t.Fatal("audio not truncated")
			}
		}},
		{"speech truncated-wav", speechURL, speech, "truncated-wav", func(t *testing.T, _ *http.Response, b []byte, _ error, _ time.Duration) {
			if w := parseWAV(t, b); int(w.declared) == len(w.pcm) || len(w.pcm)%2 == 0 {
				t.Fatal("audio not truncated mid-sample")
			}
		}},
		{"speech error-event is a 500", speechURL, speech, "error-event", func(t *testing.T, resp *http.Response, _ []byte, _ error, _ time.Duration) {
			if resp.StatusCode != 500 {
				t.Fatalf("status %d", resp.StatusCode)
			}
		}},
		{"speech reset", speechURL, speech, "reset", func(t *testing.T, _ *http.Response, _ []byte, err error, _ time.Duration) {
			if err == nil {
				t.Fatal("no error from a reset connection")
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req, _ := http.NewRequest(http.MethodPost, u+tc.path, strings.NewReader(tc.body))
			req.Header.Set(FaultHeader, tc.fault)
			start := time.Now()
			resp, err := http.DefaultClient.Do(req)
			var b []byte
			if err == nil {
				b, err = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			tc.check(t, resp, b, err, time.Since(start))
		})
	}
}

func TestFaultsOnWebsocketFrames(t *testing.T) {
	t.Parallel()
	_, u := startServer(t)
	run := func(t *testing.T, fault string) ([]wsMsg, error) {
		c := dialSpeech(t, u, FaultHeader, fault)
		send(t, c, map[string]any{"type": "session.config", "response_format": "pcm", "stream_audio": true})
		send(t, c, map[string]any{"type": "input.text", "text": strings.Repeat("A long sentence to speak. ", 6)})
		send(t, c, map[string]any{"type": "input.done"})
		var out []wsMsg
		for {
			kind, b, err := c.ReadMessage()
			if err != nil {
				return out, err
			}
			m := wsMsg{audio: b}
			if kind == 1 {
				var v map[string]any
				if json.Unmarshal(b, &v) != nil {
					m = wsMsg{typ: "<malformed>"}
				} else {
					m = wsMsg{typ: v["type"].(string), json: v}
				}
			}
			out = append(out, m)
			if m.typ == "session.done" {
				return out, nil
			}
		}
	}
	t.Run("reset", func(t *testing.T) {
		t.Parallel()
		if msgs, err := run(t, "reset,after=2"); err == nil || len(msgs) != 3 {
			t.Fatalf("%d messages, err %v", len(msgs), err)
		}
	})
	t.Run("malformed", func(t *testing.T) {
		t.Parallel()
		msgs, err := run(t, "malformed,after=1")
		if err != nil || msgs[2].typ != "<malformed>" {
			t.Fatalf("messages %+v, err %v", msgs, err)
		}
	})
	t.Run("truncated-wav", func(t *testing.T) {
		t.Parallel()
		msgs, err := run(t, "truncated-wav,after=1")
		if err != nil || len(msgs[2].audio)%2 == 0 {
			t.Fatalf("frame 2 has %d bytes, err %v", len(msgs[2].audio), err)
		}
	})
	t.Run("stall", func(t *testing.T) {
		t.Parallel()
		start := time.Now()
		if _, err := run(t, "stall,after=1,delay=300ms"); err != nil || time.Since(start) < 300*time.Millisecond {
			t.Fatalf("took %v, err %v", time.Since(start), err)
		}
	})
}
