package client

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

func sseStream(events ...string) []byte {
	var b strings.Builder
	for _, e := range events {
		b.WriteString("data: " + e + "\n\n")
	}
	return []byte(b.String())
}

// omniStream is a vLLM-Omni text+audio stream: role chunk, two text chunks with running
// usage (3 then 5 tokens), an empty talker segment, a 0.01 s WAV chunk with the
// not-final usage, the bare finish, the usage chunk and [DONE].
func omniStream() []byte {
	audio := b64(wavBytes(24000, 240, 480))
	return sseStream(
		`{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""}}],"modality":"text"}`,
		`{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":"Hello"}}],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15},"modality":"text","metrics":null}`,
		`{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":" there"}}],"usage":{"prompt_tokens":12,"completion_tokens":5,"total_tokens":17},"modality":"text","metrics":{"stage_metrics":{"0":{"stage_id":0,"stage_name":"thinker","stage_gen_time_ms":50}}}}`,
		`{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":""}}],"usage":{"prompt_tokens":12,"completion_tokens":0,"total_tokens":12},"modality":"audio"}`,
		`{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"role":"assistant","content":"`+audio+`"},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":0,"total_tokens":12},"modality":"audio","metrics":{"stage_metrics":{"0":{"stage_id":0,"stage_name":"thinker","stage_gen_time_ms":60},"1":{"stage_id":1,"stage_name":"talker"}}}}`,
		`{"id":"chatcmpl-1","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":5,"total_tokens":17}}`,
		`[DONE]`)
}

func TestChatOmniStreamEveryByteBoundary(t *testing.T) {
	t.Parallel()
	everySplit(t, Chat, replay{header: sseHeader, pieces: [][]byte{omniStream()}}, Request{Audio: chunk.AudioSpec{Format: "wav"}}, func(split int, r *record.Record) {
		if !r.OK() {
			t.Fatalf("split %d: %v", split, r.Err)
		}
		if r.Text != "Hello there" || len(r.TextChunks) != 2 || r.Usage != (record.Usage{Prompt: 12, Completion: 5, Total: 17}) {
			t.Fatalf("split %d: text %q usage %+v", split, r.Text, r.Usage)
		}
		if r.Audio.Frames != 240 || r.Audio.Seconds != 0.01 || r.Audio.Format != "wav" || len(r.AudioChunks) != 1 || r.Audio.Samples != nil {
			t.Fatalf("split %d: audio %+v", split, r.Audio)
		}
		if r.Stages["0"].Values["stage_gen_time_ms"] != 60 || r.Stages["1"].Name != "talker" || r.RequestID != "chatcmpl-1" || r.Status != 200 {
			t.Fatalf("split %d: stages %+v id %q", split, r.Stages, r.RequestID)
		}
		if len(record.ITL(r)) != 4 || r.End < r.AudioChunks[0].At {
			t.Fatalf("split %d: itl %v end %v", split, record.ITL(r), r.End)
		}
	})
}

func TestChatOpenAIAudioStream(t *testing.T) {
	t.Parallel()
	pcm := b64(make([]byte, 4800))
	stream := sseStream(
		`{"id":"c","choices":[{"index":0,"delta":{"role":"assistant"}}],"usage":null}`,
		`{"id":"c","choices":[{"index":0,"delta":{"audio":{"id":"a","transcript":"Hi"}}}],"usage":null}`,
		`{"id":"c","choices":[{"index":0,"delta":{"audio":{"id":"a","data":"`+pcm+`"}}}],"usage":null}`,
		`{"id":"c","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":9,"total_tokens":12}}`,
		`[DONE]`)
	r := do(t, Chat, replay{header: sseHeader, pieces: [][]byte{stream}}, Request{Audio: chunk.AudioSpec{Format: "pcm16", Keep: true}})
	if !r.OK() || r.Text != "Hi" || r.Audio.Frames != 2400 || r.Audio.Seconds != 0.1 || len(r.Audio.Samples) != 4800 || r.Usage.Completion != 9 {
		t.Fatalf("%+v", r)
	}
}

func TestChatNonStreaming(t *testing.T) {
	t.Parallel()
	wavB64 := b64(wavBytes(24000, 2400, 4800))
	omni := `{"id":"chatcmpl-abc","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Hello there."},"finish_reason":"stop"},{"index":0,"message":{"role":"assistant","content":null,"audio":{"id":"audio-1","data":"` + wavB64 + `","expires_at":1760086400,"transcript":""}},"finish_reason":"stop"}],"usage":{"prompt_tokens":812,"total_tokens":868,"completion_tokens":56},"metrics":null}`
	oai := `{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":null,"audio":{"id":"a","data":"` + b64(make([]byte, 480)) + `","transcript":"Hi there"}},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`
	json := map[string]string{"Content-Type": "application/json"}
	r := do(t, Chat, replay{header: json, pieces: [][]byte{[]byte(omni)}}, Request{})
	if !r.OK() || r.Text != "Hello there." || r.Audio.Seconds != 0.1 || r.Audio.Format != "wav" || r.Usage.Completion != 56 {
		t.Fatalf("vllm-omni: %+v", r)
	}
	if ttft, _ := record.TTFT(r); ttft != r.End {
		t.Fatalf("a whole body arrives at once: ttft %v e2el %v", ttft, r.End)
	}
	r = do(t, Chat, replay{header: json, pieces: [][]byte{[]byte(omni)}}, Request{Limits: Limits{Body: 1000}})
	if r.OK() || r.Err.Kind != record.KindOversized || r.Err.Message != "client: response body too large: more than 1000 bytes (options.omni.maxBodyBytes)" {
		t.Fatalf("body limit: %+v", r.Err)
	}
	r = do(t, Chat, replay{header: json, pieces: [][]byte{[]byte(oai)}}, Request{Audio: chunk.AudioSpec{Format: "pcm16"}})
	if !r.OK() || r.Text != "Hi there" || r.Audio.Frames != 240 || r.Audio.SampleRate != 24000 {
		t.Fatalf("openai: %+v", r)
	}
}

func TestChatFailures(t *testing.T) {
	t.Parallel()
	text := `{"id":"c","choices":[{"index":0,"delta":{"content":"x"}}],"modality":"text"}`
	tests := []struct {
		name string
		rp   replay
		req  Request
		kind string
		msg  string
	}{
		{"http error body", replay{status: 400, header: map[string]string{"Content-Type": "application/json"},
			pieces: [][]byte{[]byte(`{"error":{"message":"model mismatch","type":"BadRequestError","param":"model","code":400}}`)}},
			Request{}, record.KindHTTPStatus, "HTTP 400 Bad Request: model mismatch"},
		{"fastapi detail", replay{status: 422, pieces: [][]byte{[]byte(`{"detail":"Field 'image' or 'url' is required"}`)}},
			Request{}, record.KindHTTPStatus, "HTTP 422 Unprocessable Entity: Field 'image' or 'url' is required"},
		{"plain text error", replay{status: 503, pieces: [][]byte{[]byte("upstream down\n")}},
			Request{}, record.KindHTTPStatus, "HTTP 503 Service Unavailable: upstream down"},
		{"error event then done", replay{header: sseHeader, pieces: [][]byte{sseStream(text,
			`{"error":{"message":"CUDA out of memory","type":"InternalServerError","param":null,"code":500}}`, "[DONE]")}},
			Request{}, record.KindStreamError, "event at byte 84: InternalServerError: CUDA out of memory (code 500)"},
		{"vLLM error response event then done", replay{header: sseHeader, pieces: [][]byte{sseStream(text,
			`{"object":"error","message":"engine crashed","type":"InternalServerError","param":null,"code":500}`, "[DONE]")}},
			Request{}, record.KindStreamError, "event at byte 84: InternalServerError: engine crashed (code 500)"},
		{"vLLM error response as a 200 body", replay{header: map[string]string{"Content-Type": "application/json"},
			pieces: [][]byte{[]byte(`{"object":"error","message":"engine crashed","code":500}`)}},
			Request{}, record.KindStreamError, "response body: engine crashed (code 500)"},
		{"eof before done", replay{header: sseHeader, pieces: [][]byte{sseStream(text)}},
			Request{}, record.KindTruncated, "sse: stream ended before [DONE]: stream length 84"},
		{"eof inside an event", replay{header: sseHeader, pieces: [][]byte{sseStream(text)[:50]}},
			Request{}, record.KindTruncated, "sse: stream ended before [DONE]: cut inside the event starting at byte 0 (stream length 50)"},
		{"connection reset", replay{header: sseHeader, pieces: [][]byte{sseStream(text)[:50]}, reset: true},
			Request{}, record.KindReset, "unexpected EOF"},
		{"malformed event", replay{header: sseHeader, pieces: [][]byte{sseStream(text, `{"choices":[{"delta":`, "[DONE]")}},
			Request{}, record.KindMalformed, "event at byte 84: chunk: malformed JSON at byte 21: unexpected end of JSON input"},
		{"stall", replay{header: sseHeader, pieces: [][]byte{sseStream(text), sseStream("[DONE]")}, stall: time.Second},
			Request{StallTimeout: 50 * time.Millisecond}, record.KindStall, "no event for 50ms"},
		{"broken wav chunk", replay{header: sseHeader, pieces: [][]byte{sseStream(`{"id":"c","choices":[{"index":0,"delta":{"content":"`+b64([]byte("RIFF\x00\x00\x00\x00WAVEfmt \x10\x00\x00\x00"))+`"}}],"modality":"audio"}`, "[DONE]")}},
			Request{Audio: chunk.AudioSpec{Format: "wav"}}, record.KindWAVBroken, "wav: header truncated"},
		{"bad base64 audio", replay{header: sseHeader, pieces: [][]byte{sseStream(`{"choices":[{"delta":{"content":"@@@@"}}],"modality":"audio"}`, "[DONE]")}},
			Request{}, record.KindMalformed, "chunk: bad base64"},
		{"oversized event", replay{header: sseHeader, pieces: [][]byte{sseStream(text, `{"x":"`+strings.Repeat("A", 200)+`"}`, "[DONE]")}},
			Request{Limits: Limits{Event: 128}}, record.KindOversized, "sse: event too large: event starting at byte 84 exceeds 128 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := do(t, Chat, tc.rp, tc.req)
			if r.OK() || r.Err.Kind != tc.kind || !strings.Contains(r.Err.Message, tc.msg) {
				t.Fatalf("err = %+v, want %s containing %q", r.Err, tc.kind, tc.msg)
			}
		})
	}
}

func TestChatTimeoutAndConnect(t *testing.T) {
	t.Parallel()
	s := serve(t, replay{header: sseHeader, pieces: [][]byte{sseStream("{}"), sseStream("[DONE]")}, stall: time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	r := Chat(ctx, s.Client(), Request{URL: s.URL})
	if r.OK() || r.Err.Kind != record.KindTimeout {
		t.Fatalf("timeout: %+v", r.Err)
	}
	dead := serve(t, http.NotFoundHandler())
	dead.Close()
	r = Chat(context.Background(), http.DefaultClient, Request{URL: dead.URL})
	if r.OK() || r.Err.Kind != record.KindConnect || r.Status != 0 {
		t.Fatalf("connect: %+v", r.Err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	if r = Chat(ctx, s.Client(), Request{URL: s.URL}); r.OK() || r.Err.Kind != record.KindInterrupted {
		t.Fatalf("canceled: %+v", r.Err)
	}
}

func TestChatSendsBodyHeadersAndSeesEvents(t *testing.T) {
	t.Parallel()
	var got *http.Request
	var body string
	s := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		b, _ := io.ReadAll(r.Body)
		body = string(b)
		replay{header: sseHeader, pieces: [][]byte{sseStream(`{"choices":[]}`, "[DONE]")}}.ServeHTTP(w, r)
	}))
	var events []string
	r := Chat(context.Background(), s.Client(), Request{URL: s.URL, Body: []byte(`{"model":"m"}`),
		Header: http.Header{"Authorization": {"Bearer k"}}, Tags: map[string]string{"name": "a"},
		OnEvent: func(at time.Time, data []byte) { events = append(events, string(data)) }})
	if !r.OK() || got.Header.Get("Authorization") != "Bearer k" || got.Header.Get("Content-Type") != "application/json" ||
		body != `{"model":"m"}` || r.Tags["name"] != "a" || len(events) != 1 || events[0] != `{"choices":[]}` {
		t.Fatalf("record %+v headers %v body %q events %q", r, got.Header, body, events)
	}
}

// A body that ends before its Content-Length is truncated, not a reset connection.
func TestBodyShorterThanItsContentLengthIsTruncated(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		fn func(context.Context, *http.Client, Request) *record.Record
		ct string
	}{"chat": {Chat, "application/json"}, "speech": {Speech, "audio/pcm"}} {
		rp := replay{header: map[string]string{"Content-Type": tc.ct, "Content-Length": "100"}, pieces: [][]byte{[]byte(`{"id":"c","choices":[`)}}
		r := do(t, tc.fn, rp, Request{Audio: chunk.AudioSpec{Format: "pcm"}})
		if r.OK() || r.Err.Kind != record.KindTruncated || !strings.Contains(r.Err.Message, "body ended at byte 21 of its Content-Length 100") {
			t.Errorf("%s: err %+v", name, r.Err)
		}
	}
}

// A request that opened its connection says how long the dial took, and every request
// when it was written: the client's set-up, apart from the server's latency.
func TestRecordTimesTheWireApart(t *testing.T) {
	t.Parallel()
	s := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"c","choices":[{"index":0,"message":{"role":"assistant","content":"hi"}}]}`)
	}))
	hc := NewHTTPClient()
	defer hc.CloseIdleConnections()
	req := Request{URL: s.URL, Body: []byte(`{"model":"m","messages":[]}`)}
	first, second := Chat(context.Background(), hc, req), Chat(context.Background(), hc, req)
	for _, r := range []*record.Record{first, second} {
		if !r.OK() || r.Sent <= 0 || r.Sent > r.End {
			t.Errorf("sent at %v of %v (err %+v): want a write time inside the request", r.Sent, r.End, r.Err)
		}
	}
	if first.Connect <= 0 || first.Connect > first.Sent {
		t.Errorf("first request: connect %v, sent %v: want the dial's time, before the write", first.Connect, first.Sent)
	}
	if second.Connect != 0 {
		t.Errorf("second request reused the connection, yet connect %v", second.Connect)
	}
}
