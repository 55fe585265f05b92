// Package httpdebug prints HTTP exchanges for --http-debug: each request and response
// with its headers and, in full mode, the start of its body, credentials redacted. It
// is an http.RoundTripper wrapper, so every module's client gets it the same way.
package httpdebug

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Mode is what --http-debug prints.
type Mode int

// The modes: nothing, headers, headers and bodies.
const (
	Off Mode = iota
	Headers
	Full
)

// ParseMode reads --http-debug's value: "" (off), "headers" or "full".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "":
		return Off, nil
	case "headers":
		return Headers, nil
	case "full":
		return Full, nil
	}
	return Off, fmt.Errorf("--http-debug=%q: want headers (the default) or full", s)
}

// BodyLimit bounds the bytes of one body that full mode prints, so a debug run cannot
// flood the terminal.
const BodyLimit = 4 << 10

// Printer prints the exchanges of every transport it wraps to one writer, each message
// in one write and numbered, so concurrent requests stay readable.
type Printer struct {
	mu   sync.Mutex
	w    io.Writer
	mode Mode
	seq  atomic.Uint64
}

// NewPrinter prints to w (stderr) in mode, which must not be Off.
func NewPrinter(w io.Writer, mode Mode) *Printer { return &Printer{w: w, mode: mode} }

// Wrap returns next with its exchanges printed.
func (p *Printer) Wrap(next http.RoundTripper) http.RoundTripper {
	return &transport{p: p, next: next}
}

func (p *Printer) write(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, _ = io.WriteString(p.w, s)
}

type transport struct {
	p    *Printer
	next http.RoundTripper
}

// RoundTrip prints the request once the response headers (or an error) came back, with
// the body bytes the transport had sent by then; the response body prints when it ends.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	id := t.p.seq.Add(1)
	var sent *capture
	if t.p.mode == Full && req.Body != nil && req.Body != http.NoBody {
		req = req.Clone(req.Context())
		sent = &capture{ReadCloser: req.Body, contentType: req.Header.Get("Content-Type")}
		req.Body = sent
	}
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	elapsed := time.Since(start)
	var b strings.Builder
	fmt.Fprintf(&b, "--- http-debug #%d request ---\n%s %s %s\n", id, req.Method, RedactURL(req.URL), req.Proto)
	if req.ContentLength > 0 {
		fmt.Fprintf(&b, "Content-Length: %d\n", req.ContentLength)
	}
	writeHeader(&b, req.Header)
	b.WriteByte('\n')
	if sent != nil {
		sent.describe(&b, "no body bytes sent yet")
	}
	if err != nil {
		fmt.Fprintf(&b, "--- http-debug #%d failed after %v: %v ---\n\n", id, elapsed.Round(time.Microsecond), err)
		t.p.write(b.String())
		return resp, err
	}
	fmt.Fprintf(&b, "--- http-debug #%d response after %v ---\n%s %s\n", id, elapsed.Round(time.Microsecond), resp.Proto, resp.Status)
	writeHeader(&b, resp.Header)
	b.WriteByte('\n')
	t.p.write(b.String())
	if t.p.mode == Full && resp.Body != nil && resp.Body != http.NoBody {
		// A server may echo the request's credentials: its body prints without them.
		secrets := HeaderSecrets(req.Header)
		resp.Body = &capture{ReadCloser: resp.Body, contentType: resp.Header.Get("Content-Type"),
			onEnd: func(c *capture) {
				var b strings.Builder
				fmt.Fprintf(&b, "--- http-debug #%d response body ---\n", id)
				c.describe(&b, "empty body")
				t.p.write(RedactValues(b.String(), secrets))
			}}
	}
	return resp, nil
}

// CloseIdleConnections passes http.Client.CloseIdleConnections on to the wrapped
// transport.
func (t *transport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

func sortedKeys(h http.Header) []string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
