package http

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/omnik-dev/omnik/modules/iocount"
	"github.com/omnik-dev/omnik/modules/tlsclient"
	"io"
	"net/http"
	"sync/atomic"
	"time"
)

// MaxBody bounds a body kept for the script (responseType text or binary); a larger one
// fails the request with body_too_large. responseType none reads any size.
const MaxBody = 16 << 20

// Failure kinds, the omni module's where they mean the same.
const (
	kindHTTPStatus   = "http_status"      // a status other than 2xx or 3xx
	kindConnect      = "connect"          // no response: DNS, connect, a refused request
	kindTLS          = "tls"              // TLS failed: a certificate that does not verify, a refused client certificate
	kindReset        = "connection_reset" // the connection failed while the body was read
	kindTimeout      = "timeout"          // longer than the request's timeout
	kindInterrupted  = "interrupted"      // the run stopped the request: not a failure
	kindBodyTooLarge = "body_too_large"   // a kept body beyond MaxBody
)

// result is one finished request.
type result struct {
	start             time.Time
	duration, waiting time.Duration // to the body's end; to the response headers
	status            int
	proto, url        string
	header            http.Header
	body              []byte // kept for text and binary
	sent, received    int64  // body bytes
	errKind, errMsg   string
}

// do sends the request and reads the response, on its own goroutine. It never fails:
// what went wrong is in the result. ctx is the iteration's: its end cancels the request.
func (m *Module) do(ctx context.Context, s *spec) *result {
	rctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	r := &result{}
	var sent atomic.Int64
	req, err := http.NewRequestWithContext(rctx, s.method, s.url, nil)
	if err != nil {
		r.start = time.Now()
		r.errKind, r.errMsg = kindConnect, err.Error()
		return r
	}
	req.Header = s.header
	// GetBody lets a redirect or a retry on a fresh connection send the body again.
	req = iocount.SetBody(req, s.body, &sent)
	r.start = time.Now()
	resp, err := m.client.Do(req)
	r.sent = sent.Load()
	if err != nil {
		r.duration = time.Since(r.start)
		r.fail(ctx, rctx, kindConnect, err)
		return r
	}
	r.waiting = time.Since(r.start)
	r.status, r.proto, r.header, r.url = resp.StatusCode, resp.Proto, resp.Header, resp.Request.URL.String()
	err = r.readBody(resp.Body, s.responseType)
	resp.Body.Close()
	r.duration = time.Since(r.start)
	r.sent = sent.Load()
	switch {
	case err != nil:
		r.fail(ctx, rctx, kindReset, err)
	case r.status < 200 || r.status >= 400:
		r.errKind, r.errMsg = kindHTTPStatus, "HTTP "+resp.Status
	}
	return r
}

var errBodyTooLarge = fmt.Errorf("response body larger than %d bytes; responseType: 'none' reads it without keeping it", MaxBody)

// readBody reads the whole body, keeping it unless responseType is none.
func (r *result) readBody(body io.Reader, responseType string) error {
	if responseType == responseNone {
		n, err := io.Copy(io.Discard, body)
		r.received = n
		return err
	}
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(body, MaxBody+1))
	r.received = n
	if err != nil {
		return err
	}
	if n > MaxBody {
		return errBodyTooLarge
	}
	r.body = buf.Bytes()
	return nil
}

// fail classifies err: the run stopping the request, its own timeout, or kind.
func (r *result) fail(run, req context.Context, kind string, err error) {
	switch {
	case errors.Is(err, errBodyTooLarge):
		kind = kindBodyTooLarge
	case run.Err() != nil:
		kind = kindInterrupted
	case errors.Is(req.Err(), context.DeadlineExceeded):
		kind = kindTimeout
	case tlsclient.IsError(err):
		kind = kindTLS
	}
	r.errKind, r.errMsg = kind, err.Error()
}
