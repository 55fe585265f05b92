package main

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gorilla/websocket"
)

// echoServer answers every call with the request's headers inside a failure, in each
// place a failure can carry text: a 401 body, an error event inside a 200 stream, vLLM's
// ErrorResponse as a 200 body, a 200 HTML page instead of audio, a websocket error
// message. It remembers every header value it saw, to prove the secrets were sent.
type echoServer struct {
	mu   sync.Mutex
	seen strings.Builder
}

func (e *echoServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var h strings.Builder
	_ = r.Header.Write(&h)
	e.mu.Lock()
	e.seen.WriteString(h.String() + r.URL.String() + "\n")
	e.mu.Unlock()
	quoted, _ := json.Marshal(h.String())
	switch {
	case r.URL.Path == "/v1/models" && strings.HasPrefix(r.Header.Get("Authorization"), "Basic "):
		w.WriteHeader(http.StatusUnauthorized) // the lookup fails, and omnik warns with the URL
	case r.URL.Path == "/v1/models":
		w.Write([]byte(`{"object":"list","data":[{"id":"m"}]}`))
	case r.URL.Path == "/v1/audio/speech/stream":
		conn, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer conn.Close()
		conn.WriteMessage(websocket.TextMessage, []byte(`{"type":"error","message":`+string(quoted)+`}`))
		conn.ReadMessage()
	case r.URL.Path == "/v1/chat/completions" && r.Header.Get("X-Auth-Token") != "":
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte(`data: {"error":{"message":` + string(quoted) + `}}` + "\n\n"))
	case r.URL.Path == "/v1/images/generations":
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"object":"error","message":` + string(quoted) + `,"code":500}`))
	case r.URL.Path == "/v1/audio/speech":
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body><pre>" + h.String() + "</pre></body></html>"))
	default:
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(h.String()))
	}
}

// Every credential omnik is given, from every source, reaches the server and appears in
// no output: stdout, stderr with --http-debug=full, the result file, the summary export
// and the HTML report, whichever failure the server echoes it in.
func TestNoCredentialInAnyOutput(t *testing.T) {
	t.Parallel()
	script := `import omni from 'omni';
export const options = { iterations: 1, omni: { apiKey: __ENV.OPTIONS_KEY, headers: { 'X-Api-Key': 'header-secret-3' } } };
const second = omni.client({ baseURL: __ENV.TARGET, apiKey: 'client-secret-4', model: 'm' });
export default async function () {
  await omni.chat({ messages: [{ role: 'user', content: 'hi' }] });
  await omni.chat({ messages: [{ role: 'user', content: 'hi' }] }, { headers: { 'X-Auth-Token': 'call-secret-5' } });
  await omni.images.generate({ prompt: 'p' });
  await omni.audio.speech({ input: 'hi' });
  await omni.audio.stream({ input: 'Hi.' }, { headers: { 'Api-Key': 'stream-secret-6' } });
  await second.chat({ messages: [{ role: 'user', content: 'hi' }] });
}
`
	// The target's user info goes as Basic authorization when no key is set: its base64
	// must not be written either.
	basic := base64.StdEncoding.EncodeToString([]byte("omnik:url-secret-1"))
	for _, run := range []struct {
		name string
		env  []string
		args []string
		sent []string // besides the secrets every run sends
	}{
		{"options.omni.apiKey", []string{"OPTIONS_KEY=options-secret-2"}, []string{"--model", "m"}, []string{"options-secret-2"}},
		{"OMNI_API_KEY", []string{"OPTIONS_KEY=options-secret-2", "OMNI_API_KEY=env-secret-7"}, []string{"--model", "m"}, []string{"env-secret-7"}},
		// No key: Basic authorization, and a model lookup that fails and warns.
		{"user info", nil, nil, []string{basic}},
	} {
		t.Run(run.name, func(t *testing.T) {
			t.Parallel()
			echo := &echoServer{}
			srv := httptest.NewServer(echo)
			t.Cleanup(srv.Close)
			target := strings.Replace(srv.URL, "http://", "http://omnik:url-secret-1@", 1)
			dir := writeFiles(t, map[string]string{"s.js": script})
			args := append([]string{"run", "--base-url", target, "--http-debug=full", "--out", "json=records.ndjson",
				"--summary-export", "summary.json", "--out", "html=report.html"}, run.args...)
			r := runOmnik(t, dir, append(run.env, "TARGET="+target), append(args, "s.js")...)
			outputs := map[string]string{"stdout": r.stdout, "stderr": r.stderr}
			for _, f := range []string{"records.ndjson", "summary.json", "report.html"} {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatalf("%s: %v\n%s", f, err, r)
				}
				outputs[f] = string(b)
			}
			// Each call failed with the secrets in its message, the websocket one included.
			failures := 0
			for _, line := range strings.Split(outputs["records.ndjson"], "\n") {
				if strings.Contains(line, `"type":"Record"`) && strings.Contains(line, `"ok":false`) {
					failures++
				}
			}
			if failures != 6 || !strings.Contains(outputs["records.ndjson"], `"endpoint":"audio_stream","status":101,"ok":false,"error":{"kind":"stream_error_event"`) {
				t.Errorf("%d failed records, want 6 with the websocket's error message:\n%s", failures, outputs["records.ndjson"])
			}
			for _, kind := range []string{"http_status 401", "stream_error_event", "malformed_event"} {
				if !strings.Contains(r.stdout, kind) {
					t.Errorf("the summary lists no %s failure:\n%s", kind, r.stdout)
				}
			}
			if run.args == nil && !strings.Contains(r.stderr, "discovering one failed: GET http://REDACTED@127.0.0.1:") {
				t.Errorf("no model-lookup warning:\n%s", r.stderr)
			}
			echo.mu.Lock()
			seen := echo.seen.String()
			echo.mu.Unlock()
			for _, secret := range append(run.sent, "header-secret-3", "client-secret-4", "call-secret-5", "stream-secret-6") {
				if !strings.Contains(seen, secret) {
					t.Errorf("%s was not sent", secret)
				}
			}
			for _, secret := range []string{"url-secret-1", basic, "options-secret-2", "header-secret-3", "client-secret-4", "call-secret-5", "stream-secret-6", "env-secret-7"} {
				for name, out := range outputs {
					if strings.Contains(out, secret) {
						t.Errorf("%s holds %s", name, secret)
					}
				}
			}
		})
	}
}
