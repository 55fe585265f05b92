package mock

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// Server is the simulator. Its handler may be mounted anywhere; Start and
// StartLoopback also run it on a listener of its own.
type Server struct {
	cfg      Config
	profiles []Profile
	mux      *http.ServeMux
	sched    *scheduler
	metrics  *metrics
	seq      atomic.Uint64

	rngMu sync.Mutex
	rng   *rand.Rand // fault draws

	mu      sync.Mutex
	srv     *http.Server
	url     string
	wsConns map[*websocket.Conn]struct{}
	videos  *videoStore
}

// New builds a server from DefaultConfig and opts.
func New(opts ...Option) (*Server, error) {
	cfg := DefaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	profiles, err := cfg.resolveProfiles()
	if err != nil {
		return nil, err
	}
	s := &Server{
		cfg: cfg, profiles: profiles, mux: http.NewServeMux(),
		rng:     rand.New(rand.NewPCG(uint64(cfg.Seed), 0x6f6d6e696b)),
		wsConns: map[*websocket.Conn]struct{}{},
		sched:   newScheduler(cfg.KneeConcurrency),
		videos:  newVideoStore(),
	}
	// Keyed by &s.profiles[i], the pointers profileFor hands out.
	s.metrics = newMetrics(s.profiles, cfg.MetricsPrefix, cfg.KneeConcurrency)
	s.routes()
	return s, nil
}

func (s *Server) routes() {
	s.mux.HandleFunc("GET /v1/models", s.handleModels)
	s.mux.HandleFunc("POST /tokenize", s.handleTokenize)
	s.mux.HandleFunc("POST /v1/chat/completions", s.handleChat)
	s.mux.HandleFunc("POST /v1/images/generations", s.handleImageGenerations)
	s.mux.HandleFunc("POST /v1/images/edits", s.handleImageEdits)
	s.mux.HandleFunc("POST /v1/audio/speech", s.handleSpeech)
	s.mux.HandleFunc("GET /v1/audio/speech/stream", s.handleSpeechStream)
	s.mux.HandleFunc("GET /v1/realtime", s.handleRealtime)
	s.mux.HandleFunc("GET /v1/duplex", s.handleRealtime)
	s.mux.HandleFunc("POST /v1/videos", s.handleVideoCreate)
	s.mux.HandleFunc("GET /v1/videos/{id}", s.handleVideoGet)
	s.mux.HandleFunc("GET /v1/videos/{id}/content", s.handleVideoContent)
	s.mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	if !s.cfg.NoMetrics {
		// Without it, /metrics falls to the 404 below, as on a server without metrics.
		s.mux.HandleFunc("GET /metrics", s.handleMetrics)
	}
	s.mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		// FastAPI's answer to an unknown route.
		writeJSON(w, http.StatusNotFound, map[string]string{"detail": "Not Found"})
	})
}

// Handler serves the simulator's routes.
func (s *Server) Handler() http.Handler { return s.mux }

// Config returns the effective configuration.
func (s *Server) Config() Config { return s.cfg }

// Models lists the served model names, default first.
func (s *Server) Models() []string {
	var out []string
	for _, p := range s.profiles {
		out = append(out, p.Model)
	}
	return out
}

// Start listens on addr ("127.0.0.1:8000", ":0") and serves in the
// background. It returns the base URL, e.g. "http://127.0.0.1:8000".
func (s *Server) Start(addr string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv != nil {
		return "", errors.New("mock: server already started")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("mock: listen %s: %w", addr, err)
	}
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	s.url = "http://" + net.JoinHostPort(host, port)
	s.srv = &http.Server{Handler: s.mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s.url, nil
}

// StartLoopback serves on a free port of 127.0.0.1, for in-process use.
func (s *Server) StartLoopback() (string, error) { return s.Start("127.0.0.1:0") }

// URL is the base URL after Start, else "".
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.url
}

// Close stops the listener and drops every open connection, websockets
// included, so in-flight streams end at once.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.wsConns {
		_ = c.Close()
	}
	s.videos.close()
	if s.srv == nil {
		return nil
	}
	return s.srv.Close()
}

func (s *Server) handleModels(w http.ResponseWriter, _ *http.Request) {
	type model struct {
		ID      string  `json:"id"`
		Object  string  `json:"object"`
		Created int64   `json:"created"`
		OwnedBy string  `json:"owned_by"`
		Root    string  `json:"root"`
		Parent  *string `json:"parent"`
		MaxLen  int     `json:"max_model_len"`
	}
	var data []model
	now := time.Now().Unix()
	for _, p := range s.profiles {
		data = append(data, model{ID: p.Model, Object: "model", Created: now, OwnedBy: "vllm-omni", Root: p.Model, MaxLen: 32768})
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

// profileFor resolves a request's model. An empty model picks the first
// served profile that can produce output (any, when output is "").
func (s *Server) profileFor(model, output string) (*Profile, bool) {
	for i := range s.profiles {
		p := &s.profiles[i]
		if model == p.Model || (model == "" && (output == "" || p.has(output) >= 0)) {
			return p, true
		}
	}
	return nil, false
}

// requestRNG is a generator seeded by the server seed and the request's
// content, so the same request gets the same text, audio and image.
func (s *Server) requestRNG(parts ...string) (*rand.Rand, uint64) {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(s.cfg.Seed))
	h.Write(b[:])
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	seed := h.Sum64()
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), seed
}

// newID returns a unique id with prefix ("chatcmpl-", "audio-").
func (s *Server) newID(prefix string) string {
	n := s.seq.Add(1)
	return fmt.Sprintf("%s%016x", prefix, n*0x9e3779b97f4a7c15^uint64(s.cfg.Seed))
}
