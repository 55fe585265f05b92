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

// bodyFault acts out, on a single-body response, the faults that end it: an error status,
// a reset or a failed stall. done means the response is over.
func bodyFault(w http.ResponseWriter, r *http.Request, fault *Fault) (done bool) {
	switch fault.Kind {
	case FaultErrorEvent:
		writeError(w, http.StatusInternalServerError, "simulated engine failure", "")
		return true
	case FaultReset:
		resetConn(w)
		return true
	case FaultStall:
		return sleepCtx(r.Context(), durationOf(fault)) != nil
	}
	return false
}

// writeFull writes a non-streaming JSON body, acting out mid-stream faults
// the only way a single body can: an error status, a reset, a stall or a
// body cut inside its JSON.
func writeFull(w http.ResponseWriter, r *http.Request, fault *Fault, body any) {
	if fault != nil {
		if bodyFault(w, r, fault) {
			return
		}
		if fault.Kind == FaultMalformed {
			b := mustJSON(body)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write(b[:len(b)/2])
			return
		}
	}
	writeJSON(w, http.StatusOK, body)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("mock: encoding %T: %v", v, err))
	}
	return b
}
