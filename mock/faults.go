package mock

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// FaultHeader carries per-request faults in ParseFaults syntax, e.g.
// "stall,after=5,delay=1s" or "http503,p=0.5;reset". They are drawn before
// the configured faults; a header that does not parse gets a 400.
const FaultHeader = "X-Omnik-Mock-Fault"

// FaultKind names one way the simulated server misbehaves.
type FaultKind string

// The fault kinds. Status faults answer before any stream; mid-stream faults
// fire before the After-th streamed event (0 = before the first).
const (
	FaultHTTP429      FaultKind = "http429"       // 429 before the stream
	FaultHTTP500      FaultKind = "http500"       // 500 before the stream
	FaultHTTP503      FaultKind = "http503"       // 503 before the stream
	FaultErrorEvent   FaultKind = "error-event"   // in-stream error event, then [DONE]
	FaultReset        FaultKind = "reset"         // TCP reset mid-stream
	FaultMalformed    FaultKind = "malformed"     // one event that is not valid JSON
	FaultStall        FaultKind = "stall"         // pause Delay mid-stream, then go on
	FaultSlowHeaders  FaultKind = "slow-headers"  // wait Delay before the response headers
	FaultTruncatedWAV FaultKind = "truncated-wav" // one audio chunk cut short of its header's size
)

// FaultKinds lists every kind, for flag help and error messages.
func FaultKinds() []FaultKind {
	return []FaultKind{FaultHTTP429, FaultHTTP500, FaultHTTP503, FaultErrorEvent, FaultReset,
		FaultMalformed, FaultStall, FaultSlowHeaders, FaultTruncatedWAV}
}

// Fault is one kind of misbehaviour and how often it happens.
type Fault struct {
	Kind FaultKind `json:"kind"`
	// Probability per request in [0, 1].
	Probability float64 `json:"p"`
	// After is the number of streamed events before a mid-stream fault fires.
	After int `json:"after"`
	// Delay is the length of a stall or of slow headers. It is wall time, not
	// divided by Speed, because it is meant to trip client timeouts.
	Delay Duration `json:"delay"`
}

// Defaults of a fault given without after or delay: a few events stream
// first so the failure is mid-stream, and a stall long enough to notice.
const (
	defaultFaultAfter = 3
	defaultFaultDelay = Duration(2 * time.Second)
)

// ParseFault reads one fault, "kind[,p=0.5][,after=N][,delay=2s]"; p
// defaults to 1, after to 3, delay to 2s (a bare number is seconds).
func ParseFault(s string) (Fault, error) {
	fs, err := ParseFaults(s)
	if err != nil {
		return Fault{}, err
	}
	if len(fs) != 1 {
		return Fault{}, fmt.Errorf("fault %q: want exactly one fault, got %d", s, len(fs))
	}
	return fs[0], nil
}

// ParseFaults reads a list of faults. Items are separated by "," or ";": an
// item with "=" sets p, after or delay of the fault before it, any other
// item starts a new fault and may carry settings after ":". So
// "stall,p=0.1,delay=1s;http500" and "http_500:p=0.05,stall:p=0.01" both
// parse; "_" and "-" in kinds are interchangeable ("http_500" = "http500").
func ParseFaults(s string) ([]Fault, error) {
	var fs []Fault
	for _, item := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' }) {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		settings := []string{item}
		head, _, isSetting := strings.Cut(item, "=")
		if !isSetting || strings.Contains(head, ":") {
			parts := strings.Split(item, ":")
			fs = append(fs, Fault{Kind: normalizeKind(parts[0]), Probability: 1, After: defaultFaultAfter, Delay: defaultFaultDelay})
			settings = parts[1:]
		}
		for _, kv := range settings {
			if len(fs) == 0 {
				return nil, fmt.Errorf("fault %q: %q comes before any fault kind", s, kv)
			}
			if err := fs[len(fs)-1].set(kv); err != nil {
				return nil, fmt.Errorf("fault %q: %w", s, err)
			}
		}
	}
	for _, f := range fs {
		if err := f.validate(); err != nil {
			return nil, err
		}
	}
	return fs, nil
}

// normalizeKind accepts "http_500", "HTTP-500", "error_event" and the like.
func normalizeKind(k string) FaultKind {
	k = strings.ToLower(strings.ReplaceAll(strings.TrimSpace(k), "_", "-"))
	if rest, ok := strings.CutPrefix(k, "http-"); ok {
		k = "http" + rest
	}
	return FaultKind(k)
}

// set applies one "key=value" setting.
func (f *Fault) set(kv string) error {
	k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
	if !ok {
		return fmt.Errorf("%q is not key=value", kv)
	}
	var err error
	switch strings.TrimSpace(k) {
	case "p":
		f.Probability, err = strconv.ParseFloat(v, 64)
	case "after":
		f.After, err = strconv.Atoi(v)
	case "delay":
		f.Delay, err = parseDelay(v)
	default:
		err = fmt.Errorf("unknown key %q (want p, after or delay)", k)
	}
	return err
}

func parseDelay(v string) (Duration, error) {
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		return Duration(secs * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(v)
	return Duration(d), err
}

// UnmarshalJSON accepts the string form of ParseFault or an object whose
// missing p, after and delay take the same defaults.
func (f *Fault) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		v, err := ParseFault(s)
		*f = v
		return err
	}
	type plain Fault
	v := plain{Probability: 1, After: defaultFaultAfter, Delay: defaultFaultDelay}
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("fault: %w", err)
	}
	*f = Fault(v)
	return f.validate()
}

func (f Fault) validate() error {
	known := false
	for _, k := range FaultKinds() {
		known = known || k == f.Kind
	}
	switch {
	case !known:
		return fmt.Errorf("fault kind %q unknown (known: %v)", f.Kind, FaultKinds())
	case f.Probability < 0 || f.Probability > 1:
		return fmt.Errorf("fault %s: p must be in [0, 1], got %v", f.Kind, f.Probability)
	case f.After < 0 || f.Delay < 0:
		return fmt.Errorf("fault %s: after and delay must be >= 0", f.Kind)
	}
	return nil
}

func durationOf(f *Fault) time.Duration { return time.Duration(f.Delay) }

func (f *Fault) status() int {
	switch f.Kind {
	case FaultHTTP429:
		return http.StatusTooManyRequests
	case FaultHTTP500:
		return http.StatusInternalServerError
	case FaultHTTP503:
		return http.StatusServiceUnavailable
	}
	return 0
}

// pickFault draws the fault of one request: header faults first, then the
// configured ones, each with its probability from the seeded RNG.
func (s *Server) pickFault(r *http.Request) (*Fault, error) {
	var candidates []Fault
	if h := r.Header.Get(FaultHeader); h != "" {
		fs, err := ParseFaults(h)
		if err != nil {
			return nil, err
		}
		candidates = fs
	}
	candidates = append(candidates, s.cfg.Faults...)
	for _, f := range candidates {
		if f.Probability >= 1 || s.chance() < f.Probability {
			return &f, nil
		}
	}
	return nil, nil
}

func (s *Server) chance() float64 {
	s.rngMu.Lock()
	defer s.rngMu.Unlock()
	return s.rng.Float64()
}

// preStream applies the faults that act before any byte of the response:
// statuses and slow headers. It reports whether the request was answered.
func preStream(w http.ResponseWriter, r *http.Request, f *Fault) bool {
	if f == nil {
		return false
	}
	if code := f.status(); code != 0 {
		writeError(w, code, fmt.Sprintf("simulated %d (%s)", code, FaultHeader), "")
		return true
	}
	if f.Kind == FaultSlowHeaders {
		_ = sleepCtx(r.Context(), durationOf(f))
	}
	return false
}

// resetConn aborts the connection with a TCP RST so the client sees
// "connection reset", not a clean end of stream.
func resetConn(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// midStream tracks a mid-stream fault across the events of one response.
type midStream struct {
	f     *Fault
	n     int
	fired bool
}

// next is called before each streamed event and returns the fault kind to
// act on now, or "" to write the event normally. last marks the stream's
// final output, where a fault fires anyway if the stream was shorter than
// After: a requested fault never silently vanishes.
func (m *midStream) next(last bool) FaultKind {
	defer func() { m.n++ }()
	if m.f == nil || m.fired || (m.n < m.f.After && !last) {
		return ""
	}
	switch m.f.Kind {
	case FaultErrorEvent, FaultReset, FaultMalformed, FaultStall:
		m.fired = true
		return m.f.Kind
	}
	return ""
}

// truncatesAt reports whether audio payload i of n should be cut short. A
// truncated-wav fault counts audio payloads, not events, and fires on the
// last one when the response has fewer than After+1.
func truncatesAt(f *Fault, i, n int) bool {
	return f != nil && f.Kind == FaultTruncatedWAV && i == min(f.After, n-1)
}
