package omni

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/omnik-dev/omnik/modules/omni/client"
)

// fakeTokenizer is a vLLM that counts 7 + 2 tokens per word and serves model m.
func fakeTokenizer(t *testing.T, withRoute bool) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/v1/models":
			_, _ = w.Write([]byte(`{"data":[{"id":"m"}]}`))
		case r.URL.Path == "/tokenize" && withRoute:
			var req struct{ Model, Prompt string }
			if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "m" {
				t.Errorf("tokenize request %+v, %v", req, err)
			}
			_ = json.NewEncoder(w).Encode(map[string]int{"count": 7 + 2*len(strings.Fields(req.Prompt))})
		default:
			http.NotFound(w, r)
		}
	}))
}

func TestCalibrateFitsTheServersTokenizer(t *testing.T) {
	t.Parallel()
	srv := fakeTokenizer(t, true)
	defer srv.Close()
	cal, err := Calibrate(context.Background(), Config{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(cal.PerWord-2) > 1e-9 || math.Abs(cal.Overhead-7) > 1e-9 {
		t.Errorf("calibration %+v, want 7 + 2/word", *cal)
	}
	bare := fakeTokenizer(t, false)
	defer bare.Close()
	if _, err := Calibrate(context.Background(), Config{BaseURL: bare.URL}); !errors.Is(err, client.ErrNoTokenizer) {
		t.Errorf("a server without /tokenize: err = %v, want ErrNoTokenizer", err)
	}
}
