package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// serverEnv, when set, makes the process the stamping server (the child), its value
// the default chunks per second.
const serverEnv = "OMNIK_E2E_BENCH_SERVER"

// stamps is what the server saw of one request, in Unix nanoseconds: CLOCK_REALTIME,
// the clock of the client's record start too.
type stamps struct {
	ID     string  `json:"id"`
	Recv   int64   `json:"recv_ns"`
	Chunks []int64 `json:"chunks_ns,omitempty"`
}

// stampServer answers chat completions, non-streaming or streamed at a fixed chunk rate,
// and keeps every request's stamps until /bench/stamps hands them over.
type stampServer struct {
	rate    float64
	ids     atomic.Int64
	open    atomic.Int64
	done    atomic.Int64
	chunks  atomic.Int64
	mu      sync.Mutex
	records []*stamps
}

// serve is the child process: it prints its address, serves until its stdin closes
// (the parent ended) and exits.
func serve(rate float64) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Println(ln.Addr())
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	s := &stampServer{rate: rate}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"bench","object":"model"}]}`)
	})
	mux.HandleFunc("GET /bench/stamps", s.handOver)
	mux.HandleFunc("GET /bench/counts", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, `{"open":%d,"done":%d,"chunks":%d}`, s.open.Load(), s.done.Load(), s.chunks.Load())
	})
	return http.Serve(ln, mux)
}

// chatBody is what the server reads of a request: max_tokens chunks, streamed or not,
// and bench_rate chunks per second when the script sets one.
type chatBody struct {
	Stream    bool    `json:"stream"`
	MaxTokens int     `json:"max_tokens"`
	Rate      float64 `json:"bench_rate"`
}

func (s *stampServer) chat(w http.ResponseWriter, r *http.Request) {
	st := &stamps{Recv: time.Now().UnixNano()}
	var body chatBody
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	st.ID = "chatcmpl-" + strconv.FormatInt(s.ids.Add(1), 10)
	s.keep(st)
	n := max(body.MaxTokens, 1)
	if !body.Stream {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(appendCompletion(make([]byte, 0, 512), st.ID, n))
		s.done.Add(1)
		return
	}
	rate := s.rate
	if body.Rate > 0 {
		rate = body.Rate
	}
	s.open.Add(1)
	defer s.open.Add(-1)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	interval := time.Duration(float64(time.Second) / rate)
	// A random phase spreads the streams' chunks over an interval, as a server's
	// requests admitted at different steps do; absolute deadlines keep a late chunk
	// from pushing the later ones back.
	start := time.Now().Add(rand.N(interval))
	st.Chunks = make([]int64, 0, n)
	buf := make([]byte, 0, 512)
	for k := 1; k <= n; k++ {
		time.Sleep(time.Until(start.Add(time.Duration(k-1) * interval)))
		buf = appendChunk(buf[:0], st.ID, k)
		stamp := time.Now().UnixNano() // the send: just before the write
		if _, err := w.Write(buf); err != nil || rc.Flush() != nil {
			return
		}
		s.mu.Lock()
		st.Chunks = append(st.Chunks, stamp)
		s.mu.Unlock()
		s.chunks.Add(1)
	}
	buf = appendUsage(buf[:0], st.ID, n)
	_, _ = w.Write(append(buf, "data: [DONE]\n\n"...))
	s.done.Add(1)
}

func (s *stampServer) keep(st *stamps) {
	s.mu.Lock()
	s.records = append(s.records, st)
	s.mu.Unlock()
}

// handOver writes every request's stamps as JSON lines and forgets them.
func (s *stampServer) handOver(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	records := s.records
	s.records = nil
	s.mu.Unlock()
	enc := json.NewEncoder(w)
	for _, st := range records {
		s.mu.Lock()
		err := enc.Encode(st)
		s.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// appendChunk is a ~250-byte vLLM-Omni text chunk with running usage.
func appendChunk(b []byte, id string, k int) []byte {
	b = append(b, `data: {"id":"`...)
	b = append(b, id...)
	b = append(b, `","object":"chat.completion.chunk","created":1760000000,"model":"bench","choices":[{"index":0,"delta":{"content":" tok"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":64,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(64+k), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(k), 10)
	return append(b, `},"modality":"text"}`+"\n\n"...)
}

// appendUsage is the last chunk: no content, the finish reason and the final usage.
func appendUsage(b []byte, id string, n int) []byte {
	b = append(b, `data: {"id":"`...)
	b = append(b, id...)
	b = append(b, `","object":"chat.completion.chunk","created":1760000000,"model":"bench","choices":[{"index":0,"delta":{},"finish_reason":"length"}],"usage":{"prompt_tokens":64,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(64+n), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, `},"modality":"text"}`+"\n\n"...)
}

// appendCompletion is a non-streamed chat completion of n tokens.
func appendCompletion(b []byte, id string, n int) []byte {
	b = append(b, `{"id":"`...)
	b = append(b, id...)
	b = append(b, `","object":"chat.completion","created":1760000000,"model":"bench","choices":[{"index":0,"message":{"role":"assistant","content":"`...)
	for range n {
		b = append(b, " tok"...)
	}
	b = append(b, `"},"logprobs":null,"finish_reason":"length"}],"usage":{"prompt_tokens":64,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(64+n), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, `}}`...)
}
