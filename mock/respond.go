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

// writeFull writes a non-streaming JSON body, acting out mid-stream faults
// the only way a single body can: an error status, a reset, a stall or a
// body cut inside its JSON.
func writeFull(w http.ResponseWriter, r *http.Request, fault *Fault, body any) {
	if fault != nil {
		switch fault.Kind {
		case FaultErrorEvent:
			writeError(w, http.StatusInternalServerError, "simulated engine failure", "")
			return
		case FaultReset:
			resetConn(w)
			return
		case FaultStall:
			if sleepCtx(r.Context(), durationOf(fault)) != nil {
				return
			}
		case FaultMalformed:
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
