// Package hostile is a server that misbehaves on purpose: it answers every endpoint omnik
// calls (chat streamed and whole, image generations and edits, speech raw and SSE, the
// websocket speech stream) like vLLM-Omni would, bent by one chosen fault: an error
// status, a reset, a stall, a lie about the body's length, malformed or endless data.
// The fault matrix (matrix_test.go) runs the omnik binary against each fault on each
// endpoint; docs/faults.md is its table.
package hostile

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
)

// Endpoint is one way omnik calls a server: a path and the form of the response.
type Endpoint string

// The endpoints, in the matrix's column order.
const (
	ChatStream  Endpoint = "chat_stream"  // POST /v1/chat/completions, stream: true (SSE)
	ChatJSON    Endpoint = "chat_json"    // POST /v1/chat/completions, stream: false
	Images      Endpoint = "images"       // POST /v1/images/generations (JSON)
	ImagesEdit  Endpoint = "images_edit"  // POST /v1/images/edits, stream: true (SSE)
	SpeechRaw   Endpoint = "speech_raw"   // POST /v1/audio/speech, stream_format: audio
	SpeechSSE   Endpoint = "speech_sse"   // POST /v1/audio/speech, stream_format: sse
	AudioStream Endpoint = "audio_stream" // GET /v1/audio/speech/stream (websocket)
)

// Endpoints lists every endpoint.
func Endpoints() []Endpoint {
	return []Endpoint{ChatStream, ChatJSON, Images, ImagesEdit, SpeechRaw, SpeechSSE, AudioStream}
}

// Server serves one fault on every endpoint.
type Server struct {
	*httptest.Server
	fault Fault
	// life ends every stall, drip and flood when the server closes, so no handler
	// outlives a test.
	life context.Context
	end  context.CancelFunc
}

// Start serves f on a loopback port; Close stops it.
func Start(f Fault) *Server {
	s := &Server{fault: f}
	s.life, s.end = context.WithCancel(context.Background())
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[{"id":"`+Model+`","object":"model","created":1,"owned_by":"vllm-omni"}]}`)
	})
	for _, p := range []string{"POST /v1/chat/completions", "POST /v1/images/generations", "POST /v1/images/edits",
		"POST /v1/audio/speech", "GET /v1/audio/speech/stream"} {
		mux.HandleFunc(p, s.handle)
	}
	s.Server = httptest.NewServer(mux)
	return s
}

// Close ends the fault's open responses, then the server.
func (s *Server) Close() {
	s.end()
	s.Server.Close()
}

// handle answers one request: the endpoint's healthy response, bent by the fault.
func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	ep := endpointOf(r)
	act := s.fault.acts[ep]
	if act == nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":{"message":"hostile: fault `+s.fault.Name+` does not apply to `+string(ep)+`","type":"BadRequestError","code":400}}`)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	defer context.AfterFunc(s.life, cancel)()
	act(&call{ctx: ctx, ep: ep, w: w, r: r, res: healthy(ep)})
}

// endpointOf reads which endpoint a request calls. It reads the request body first, as
// a server does before it answers, so a fault that drops the connection never cuts the
// request short.
func endpointOf(r *http.Request) Endpoint {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var req struct {
		Stream       *bool  `json:"stream"`
		StreamFormat string `json:"stream_format"`
	}
	json.Unmarshal(body, &req)
	switch p := r.URL.Path; {
	case p == "/v1/audio/speech/stream":
		return AudioStream
	case p == "/v1/images/edits":
		return ImagesEdit // omnik's scenarios stream their edits
	case p == "/v1/images/generations":
		return Images
	case strings.HasPrefix(p, "/v1/audio/speech") && req.StreamFormat == "sse":
		return SpeechSSE
	case strings.HasPrefix(p, "/v1/audio/speech"):
		return SpeechRaw
	case req.Stream != nil && !*req.Stream:
		return ChatJSON
	}
	return ChatStream
}

// call is one request being answered. ctx ends when the client goes away or the server
// closes.
type call struct {
	ctx context.Context
	ep  Endpoint
	w   http.ResponseWriter
	r   *http.Request
	res *response
}
