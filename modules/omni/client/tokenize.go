package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// ErrNoTokenizer reports a server without a /tokenize route (404 or 405): callers go on
// without calibration.
var ErrNoTokenizer = fmt.Errorf("client: the server has no /tokenize")

// Tokenize asks vLLM's POST /tokenize how many tokens the server makes of text.
func Tokenize(ctx context.Context, hc *http.Client, baseURL string, header http.Header, model, text string) (int, error) {
	body, err := json.Marshal(map[string]any{"model": model, "prompt": text})
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, baseURL+"/tokenize", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header = header.Clone()
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return 0, err
	}
	switch {
	case resp.StatusCode == http.StatusMethodNotAllowed || (resp.StatusCode == http.StatusNotFound && !vllmError(raw)):
		return 0, ErrNoTokenizer
	case resp.StatusCode != http.StatusOK:
		return 0, fmt.Errorf("POST /tokenize: HTTP %d: %.200s", resp.StatusCode, raw)
	}
	var out struct {
		Count  *int  `json:"count"`
		Tokens []int `json:"tokens"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return 0, fmt.Errorf("POST /tokenize: %w", err)
	}
	if out.Count != nil {
		return *out.Count, nil
	}
	if out.Tokens != nil {
		return len(out.Tokens), nil
	}
	return 0, fmt.Errorf("POST /tokenize: the answer has neither count nor tokens: %.200s", raw)
}

// vllmError tells vLLM's own error body (an unknown model is a 404 too) from a missing
// route's ({"detail": "Not Found"} or a proxy's page).
func vllmError(body []byte) bool {
	var e struct {
		Message string `json:"message"`
		Error   *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	return json.Unmarshal(body, &e) == nil && (e.Message != "" || (e.Error != nil && e.Error.Message != ""))
}
