package mock

import (
	"encoding/json"
	"fmt"
	"net/http"
)

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// requestFault draws the request's fault and acts out those that strike before the
// response starts; done means the response is already written.
func (s *Server) requestFault(w http.ResponseWriter, r *http.Request) (fault *Fault, done bool) {
	fault, err := s.pickFault(r)
	if err != nil {
		writeHTTPError(w, http.StatusBadRequest, err.Error())
		return nil, true
	}
	return fault, preStream(w, r, fault)
}

// bodyFault acts out, on a single-body response, the faults that end it: an
// error status, a reset or a stall the client gave up on. It ends the
// request in the engine when it ends the response and returns why, or nil
// when the body should go on.
func bodyFault(w http.ResponseWriter, r *http.Request, pl *pipeline, fault *Fault) error {
	switch fault.Kind {
	case FaultErrorEvent:
		pl.done(errEngineFailed)
		writeError(w, http.StatusInternalServerError, "simulated engine failure", "")
		return errEngineFailed
	case FaultReset:
		pl.done(errAborted)
		resetConn(w)
		return errAborted
	case FaultStall:
		if err := sleepCtx(r.Context(), durationOf(fault)); err != nil {
			pl.done(err)
			return err
		}
	}
	return nil
}

// writeFull ends the request in the engine and writes its non-streaming
// JSON body, acting out mid-stream faults the only way a single body can:
// an error status, a reset, a stall or a body cut inside its JSON (which
// the server believes it sent whole).
func writeFull(w http.ResponseWriter, r *http.Request, pl *pipeline, fault *Fault, body any) {
	if fault != nil {
		if bodyFault(w, r, pl, fault) != nil {
			return
		}
		if fault.Kind == FaultMalformed {
			pl.done(nil)
			b := mustJSON(body)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write(b[:len(b)/2])
			return
		}
	}
	pl.done(nil)
	writeJSON(w, http.StatusOK, body)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("mock: encoding %T: %v", v, err))
	}
	return b
}
