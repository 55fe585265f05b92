package mock

import (
	"bufio"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// startServer runs a simulator ten times faster than real time unless the
// options say otherwise, and stops it when the test ends.
func startServer(t *testing.T, opts ...Option) (*Server, string) {
	t.Helper()
	s, err := New(append([]Option{WithSpeed(10)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.StartLoopback()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, u
}

func post(t *testing.T, url, body string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// sseEvent is one parsed event, stamped when its blank line arrived.
type sseEvent struct {
	event string
	data  string
	at    time.Time
}

// readSSE parses a whole stream the way omnik's client must: buffer to the
// blank line, skip comments, keep `event:`.
func readSSE(r io.Reader) ([]sseEvent, error) {
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.data != "" || cur.event != "" {
				cur.at = time.Now()
				out = append(out, cur)
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.data = strings.TrimPrefix(line, "data: ")
		}
	}
	return out, sc.Err()
}

func mustSSE(t *testing.T, resp *http.Response) []sseEvent {
	t.Helper()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("Content-Type %q", ct)
	}
	evs, err := readSSE(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// chunk is the part of a chat chunk the tests inspect; raw keeps the keys.
type chunk struct {
	Choices []struct {
		Delta struct {
			Role    *string         `json:"role"`
			Content json.RawMessage `json:"content"`
			Audio   *struct {
				Data string `json:"data"`
			} `json:"audio"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage    *usage          `json:"usage"`
	Modality string          `json:"modality"`
	Metrics  json.RawMessage `json:"metrics"`
	raw      map[string]json.RawMessage
	at       time.Time
}

func parseChunks(t *testing.T, evs []sseEvent) []chunk {
	t.Helper()
	if n := len(evs); n == 0 || evs[n-1].data != "[DONE]" {
		t.Fatalf("stream does not end with [DONE]: %d events", n)
	}
	var out []chunk
	for _, e := range evs[:len(evs)-1] {
		var c chunk
		if err := json.Unmarshal([]byte(e.data), &c); err != nil {
			t.Fatalf("chunk %q: %v", e.data, err)
		}
		_ = json.Unmarshal([]byte(e.data), &c.raw)
		c.at = e.at
		out = append(out, c)
	}
	return out
}

func (c chunk) text() string {
	var s string
	_ = json.Unmarshal(c.Choices[0].Delta.Content, &s)
	return s
}

// wavInfo parses a standalone PCM16 WAV: rate, declared data size and the
// PCM that actually follows the header.
type wavInfo struct {
	rate     int
	channels int
	declared uint32
	pcm      []byte
}

func parseWAV(t *testing.T, b []byte) wavInfo {
	t.Helper()
	if len(b) < 44 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "WAVE" || string(b[12:16]) != "fmt " || string(b[36:40]) != "data" {
		t.Fatalf("not a canonical WAV: % x", b[:min(len(b), 44)])
	}
	if binary.LittleEndian.Uint16(b[20:]) != 1 || binary.LittleEndian.Uint16(b[34:]) != 16 {
		t.Fatalf("not PCM16")
	}
	return wavInfo{rate: int(binary.LittleEndian.Uint32(b[24:])), channels: int(binary.LittleEndian.Uint16(b[22:])),
		declared: binary.LittleEndian.Uint32(b[40:]), pcm: b[44:]}
}

func b64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// errorOf decodes a vLLM error body.
func errorOf(t *testing.T, r io.Reader) apiError {
	t.Helper()
	b, _ := io.ReadAll(r)
	var body errorBody
	if err := json.Unmarshal(b, &body); err != nil || body.Error.Code == 0 {
		t.Fatalf("not an error body: %s", b)
	}
	return body.Error
}

const chatURL = "/v1/chat/completions"

// streamChat is a full Qwen3-Omni streaming request with every option on.
var streamChat = `{"model":"Qwen/Qwen3-Omni-30B-A3B-Instruct","messages":[{"role":"user","content":[{"type":"text","text":"Describe the sea."}]}],
 "stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true},"return_stage_metrics":true}`
