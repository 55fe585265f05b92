package mock

import (
	"context"
	"encoding/json"
	"net/http"
)

// sse writes one Server-Sent Events response and applies a mid-stream fault
// before the event it targets.
type sse struct {
	w     http.ResponseWriter
	rc    *http.ResponseController
	fault midStream
	// onError writes the endpoint's own error event for an error-event fault.
	onError func(s *sse) error
}

func startSSE(w http.ResponseWriter, f *Fault, onError func(*sse) error) *sse {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	s := &sse{w: w, rc: http.NewResponseController(w), fault: midStream{f: f}, onError: onError}
	_ = s.rc.Flush()
	return s
}

// send writes one event (event may be "" for chat-style streams), first
// acting on a fault due at this point; last marks the final output event.
// errAborted (or errEngineFailed, which wraps it) means the response is over.
func (s *sse) send(ctx context.Context, event string, v any, last bool) error {
	switch s.fault.next(last) {
	case FaultStall:
		if err := sleepCtx(ctx, durationOf(s.fault.f)); err != nil {
			return err
		}
	case FaultMalformed:
		if err := s.raw(event, []byte(`{"id":"malformed","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"`)); err != nil {
			return err
		}
	case FaultReset:
		resetConn(s.w)
		return errAborted
	case FaultErrorEvent:
		if err := s.onError(s); err != nil {
			return err
		}
		return errEngineFailed
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.raw(event, b)
}

// raw writes an event with an already encoded payload and flushes it, so the
// client's timestamp for it is the moment the simulated output was ready.
func (s *sse) raw(event string, data []byte) error {
	buf := make([]byte, 0, len(data)+len(event)+16)
	if event != "" {
		buf = append(append(append(buf, "event: "...), event...), '\n')
	}
	buf = append(append(append(buf, "data: "...), data...), "\n\n"...)
	if _, err := s.w.Write(buf); err != nil {
		return err
	}
	return s.rc.Flush()
}

// done writes the [DONE] sentinel chat and image-edit streams end with.
func (s *sse) done() error { return s.raw("", []byte("[DONE]")) }
