package client

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestTokenize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		status  int
		body    string
		want    int
		wantErr string
	}{
		{"count", 200, `{"count": 7, "max_model_len": 4096, "tokens": [1,2,3,4,5,6,7]}`, 7, ""},
		{"tokens only", 200, `{"tokens": [1,2,3]}`, 3, ""},
		{"no route", 404, `{"detail":"Not Found"}`, 0, ErrNoTokenizer.Error()},
		{"unknown model", 404, `{"object":"error","message":"The model x does not exist.","type":"NotFoundError","code":404}`, 0, "does not exist"},
		{"server error", 500, `boom`, 0, "HTTP 500: boom"},
		{"bad json", 200, `{`, 0, "POST /tokenize"},
		{"neither", 200, `{}`, 0, "neither count nor tokens"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/tokenize" || r.Header.Get("Authorization") != "Bearer k" {
					t.Errorf("got %s %s auth %q", r.Method, r.URL.Path, r.Header.Get("Authorization"))
				}
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			h := http.Header{"Authorization": {"Bearer k"}}
			got, err := Tokenize(context.Background(), srv.Client(), srv.URL, h, "m", "hello world")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				if tc.name == "no route" && !errors.Is(err, ErrNoTokenizer) {
					t.Errorf("404 must be ErrNoTokenizer, got %v", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Tokenize = %d, %v; want %d", got, err, tc.want)
			}
		})
	}
}
