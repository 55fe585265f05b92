package httpdebug

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// syncBuffer is a writer the reading goroutines of several requests share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// exchange sends one request through a debug transport in mode to a server answering
// with contentType and body, and returns what was printed.
func exchange(t *testing.T, mode Mode, reqBody string, contentType string, body []byte) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Set-Cookie", "sid=cookie-secret")
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	var out syncBuffer
	hc := &http.Client{Transport: NewPrinter(&out, mode).Wrap(srv.Client().Transport)}
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/x?api_key=query-secret&model=m", strings.NewReader(reqBody))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer header-secret")
	req.Header.Set("X-Api-Key", "api-key-secret")
	req.Header.Set("Cookie", "sid=cookie-secret")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Equal(got, body) {
		t.Fatalf("the debug transport changed the body: %d bytes, want %d", len(got), len(body))
	}
	return out.String()
}

func TestHeadersModePrintsBothSidesWithoutCredentialsOrBodies(t *testing.T) {
	t.Parallel()
	out := exchange(t, Headers, `{"prompt":"request-body"}`, "application/json", []byte(`{"reply":"response-body"}`))
	for _, want := range []string{"POST http://", "/v1/x?api_key=REDACTED&model=m HTTP/1.1", "Authorization: Bearer REDACTED",
		"X-Api-Key: REDACTED", "Cookie: REDACTED", "200 OK", "Set-Cookie: REDACTED", "Content-Type: application/json"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, secret := range []string{"secret", "request-body", "response-body"} {
		if strings.Contains(out, secret) {
			t.Errorf("headers mode printed %q:\n%s", secret, out)
		}
	}
}

func TestFullModeBoundsAndSummarisesBodies(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("0123456789abcdef", 4*BodyLimit/16) // four times the bound
	out := exchange(t, Full, `{"prompt":"request-body"}`, "text/plain", []byte(long))
	if !strings.Contains(out, `{"prompt":"request-body"}`) || !strings.Contains(out, long[:BodyLimit]) {
		t.Errorf("full mode should print the request body and the start of the response:\n%.600s", out)
	}
	if strings.Contains(out, long[:BodyLimit+1]) || !strings.Contains(out, "[… 12288 more bytes not shown, 16384 in all]") {
		t.Errorf("response body not cut at %d bytes:\n%.300s", BodyLimit, out[len(out)-300:])
	}
	if len(out) > 2*BodyLimit {
		t.Errorf("printed %d bytes for one exchange; the bound is %d per body", len(out), BodyLimit)
	}
	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00"), make([]byte, 9000)...)
	for _, ct := range []string{"image/png", ""} {
		out = exchange(t, Full, "", ct, png)
		if !strings.Contains(out, "[binary body: 9010 bytes, ") || strings.Contains(out, "PNG") {
			t.Errorf("Content-Type %q: binary body not summarised:\n%s", ct, out)
		}
	}
}

func TestFailedRequestIsPrinted(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	hc := &http.Client{Transport: NewPrinter(&out, Headers).Wrap(http.DefaultTransport)}
	_, err := hc.Get("http://127.0.0.1:1/?token=tok-secret")
	if err == nil {
		t.Skip("something listens on port 1")
	}
	if s := out.String(); !strings.Contains(s, "GET http://127.0.0.1:1/?token=REDACTED") || !strings.Contains(s, "failed after") {
		t.Errorf("output = %s", s)
	}
}

func TestParseMode(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Mode{"": Off, "headers": Headers, "full": Full} {
		if m, err := ParseMode(in); err != nil || m != want {
			t.Errorf("ParseMode(%q) = %v, %v", in, m, err)
		}
	}
	if _, err := ParseMode("bodies"); err == nil {
		t.Error("ParseMode(bodies) accepted")
	}
}

// idleCloser records CloseIdleConnections.
type idleCloser struct {
	http.RoundTripper
	closed bool
}

func (c *idleCloser) CloseIdleConnections() { c.closed = true }

func TestWrappedTransportStillClosesIdleConnections(t *testing.T) {
	t.Parallel()
	inner := &idleCloser{RoundTripper: http.DefaultTransport}
	(&http.Client{Transport: NewPrinter(io.Discard, Headers).Wrap(inner)}).CloseIdleConnections()
	if !inner.closed {
		t.Error("CloseIdleConnections did not reach the wrapped transport")
	}
}

// A server that echoes the request's credentials in its body: full mode prints the body
// without them, by value.
func TestFullModeRedactsEchoedCredentials(t *testing.T) {
	t.Parallel()
	out := exchange(t, Full, "{}", "text/plain", []byte("401: you sent Bearer header-secret and api-key-secret (sid=cookie-secret)"))
	for _, secret := range []string{"header-secret", "api-key-secret", "cookie-secret"} {
		if strings.Contains(out, secret) {
			t.Errorf("printed %s:\n%s", secret, out)
		}
	}
	if !strings.Contains(out, "401: you sent REDACTED and REDACTED (REDACTED)") {
		t.Errorf("the body is not printed:\n%s", out)
	}
}
