package mock

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func TestTokenizeCountsLikeTheUsage(t *testing.T) {
	t.Parallel()
	_, url := startServer(t)
	for _, tc := range []struct {
		body   string
		status int
		count  int
	}{
		{`{"model":"Qwen/Qwen3-Omni-30B-A3B-Instruct","prompt":"one two three four five six"}`, 200, 8},
		{`{"prompt":""}`, 200, 0},
		{`{"model":"nope","prompt":"x"}`, 404, 0},
		{`{`, 400, 0},
	} {
		resp, err := http.Post(url+"/tokenize", "application/json", strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Count  int   `json:"count"`
			Tokens []int `json:"tokens"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if resp.StatusCode != tc.status || (tc.status == 200 && (out.Count != tc.count || len(out.Tokens) != tc.count)) {
			t.Errorf("%s: HTTP %d count %d tokens %d; want %d and %d", tc.body, resp.StatusCode, out.Count, len(out.Tokens), tc.status, tc.count)
		}
	}
}
