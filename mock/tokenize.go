package mock

import (
	"encoding/json"
	"net/http"
)

// handleTokenize is vLLM's POST /tokenize: {model, prompt} → {count, max_model_len,
// tokens}. It counts the way the simulator counts prompt tokens, so a client calibrating
// prompt lengths against it gets what the usage will say (chat adds its template).
func (s *Server) handleTokenize(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model  string `json:"model"`
		Prompt string `json:"prompt"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid JSON body: "+err.Error(), "")
		return
	}
	if _, ok := s.profileFor(req.Model, ""); !ok {
		writeError(w, http.StatusNotFound, "The model `"+req.Model+"` does not exist.", "model")
		return
	}
	n := estimateTokens(req.Prompt)
	tokens := make([]int, n)
	for i := range tokens {
		tokens[i] = 1000 + i
	}
	writeJSON(w, http.StatusOK, map[string]any{"count": n, "max_model_len": 32768, "tokens": tokens})
}
