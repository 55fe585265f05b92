// Package client sends omni requests over HTTP and reads the responses into records,
// timing every event on the reading goroutine. Calls never return errors: a failure is
// data in the record (kind and message), so a run goes on.
package client

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/omnik-dev/omnik/modules/httpdebug"
	"github.com/omnik-dev/omnik/modules/iocount"
	"github.com/omnik-dev/omnik/modules/omni/chunk"
	"github.com/omnik-dev/omnik/modules/omni/record"
	"github.com/omnik-dev/omnik/modules/omni/sse"
	"github.com/omnik-dev/omnik/modules/tlsclient"
)

// ErrBodyTooLarge reports a non-streamed body beyond Limits.Body.
var ErrBodyTooLarge = errors.New("client: response body too large")

// Limits bound what one response may make the client hold (docs/cli.md, "Limits"): a
// server, not the script, decides how much it sends. Zero fields take DefaultLimits.
type Limits struct {
	Body  int64 // a whole non-streamed body (JSON with base64 images or audio)
	Event int   // one SSE event or websocket message
	// Record bounds the text and payloads kept for the script and the chunks measured.
	record.Limits
}

// DefaultLimits are the limits of an endpoint (docs/cli.md, "Limits"): speech and audio
// streams arrive in events of kilobytes; chat may carry a whole image in one event, and
// the image endpoints several in one body.
func DefaultLimits(endpoint string) Limits {
	l := Limits{Body: 16 << 20, Event: 4 << 20, Limits: record.Limits{Text: 1 << 20, Chunks: 1 << 17}}
	switch endpoint {
	case record.EndpointChat:
		l.Event = 16 << 20
	case record.EndpointImages, record.EndpointImageEdit:
		l.Body, l.Event = 64<<20, 32<<20
	}
	return l
}

// Or fills l's zero fields from d, and bounds the payloads kept for the script
// (keepAudio, keepImages) as a whole body is: Kept is always Body.
func (l Limits) Or(d Limits) Limits {
	if l.Body <= 0 {
		l.Body = d.Body
	}
	if l.Event <= 0 {
		l.Event = d.Event
	}
	if l.Text <= 0 {
		l.Text = d.Text
	}
	if l.Chunks <= 0 {
		l.Chunks = d.Chunks
	}
	l.Kept = l.Body
	return l
}

// Request is one call. Body is sent as is; the caller applies the defaults (stream,
// stream_options, return_stage_metrics) when it builds it.
type Request struct {
	URL           string
	Body          []byte
	ContentType   string // application/json unless set (multipart for image edits)
	Header        http.Header
	Tags          map[string]string
	IntendedStart time.Time
	// StallTimeout fails a request whose response goes quiet for longer, counted from the
	// response headers to each event (or each read of raw audio). Zero disables it.
	StallTimeout time.Duration
	// Audio says what format the response audio is in and whether to keep the samples.
	Audio chunk.AudioSpec
	// KeepImages keeps the base64 image payloads in the record.
	KeepImages bool
	// Limits bound what the response may make the client hold; zero fields take the
	// endpoint's DefaultLimits.
	Limits Limits
	// OnEvent, when set, sees every SSE event's data (valid during the call only) and its
	// arrival time. It runs on the reading goroutine: it must not block.
	OnEvent func(at time.Time, data []byte)
}

// NewHTTPClient is the HTTP client of one target: its own connection pool, kept alive.
func NewHTTPClient() *http.Client {
	tr := &http.Transport{
		Proxy:       http.ProxyFromEnvironment,
		DialContext: (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		// No artificial cap: a load test must open as many connections as it has requests.
		MaxIdleConns:        0,
		MaxIdleConnsPerHost: 100000,
		IdleConnTimeout:     90 * time.Second,
		// Compressed SSE would hold events in the decompressor and skew chunk times.
		DisableCompression: true,
	}
	return &http.Client{Transport: tr}
}

// call is one request in flight.
type call struct {
	req     *Request
	b       *record.Builder
	resp    *http.Response
	body    *closer // resp.Body, counting what was read
	ctx     context.Context
	stall   *time.Timer
	stalled atomic.Bool
	// sent counts request body bytes; the transport writes them on its own goroutine.
	sent atomic.Int64
	t0   time.Time // the record's start, set before the request leaves
	tls  bool      // an https URL: the connection is open once its handshake is done
	wire wire
}

// start sends the request and returns the call with its response, or nil when it
// failed before a successful response (the record then holds why).
func start(ctx context.Context, hc *http.Client, req *Request, endpoint string) (*call, *record.Record) {
	req.Limits = req.Limits.Or(DefaultLimits(endpoint))
	ctx, cancel := context.WithCancel(ctx)
	c := &call{req: req, ctx: ctx, tls: strings.HasPrefix(req.URL, "https:")}
	hr, err := http.NewRequestWithContext(c.traced(ctx), http.MethodPost, req.URL, nil)
	if err != nil {
		cancel()
		b := record.NewBuilder(endpoint, time.Now())
		b.Fail(record.KindConnect, err.Error())
		return nil, b.Finish(time.Now())
	}
	hr = iocount.SetBody(hr, req.Body, &c.sent)
	for k, v := range req.Header {
		hr.Header[k] = v
	}
	userInfoAsHeader(hr.URL, hr.Header)
	ct := req.ContentType
	if ct == "" {
		ct = "application/json"
	}
	hr.Header.Set("Content-Type", ct)

	c.t0 = time.Now()
	c.b = record.NewBuilder(endpoint, c.t0)
	c.b.Redact(httpdebug.HeaderSecrets(hr.Header))
	c.b.SetLimits(req.Limits.Limits)
	c.b.SetTags(req.Tags)
	c.b.SetIntendedStart(req.IntendedStart)
	resp, err := hc.Do(hr)
	if err != nil {
		c.fail(err)
		cancel()
		c.b.SetBytes(c.sent.Load(), 0)
		c.setWire()
		return nil, c.b.Finish(time.Now())
	}
	c.resp = resp
	c.b.SetStatus(resp.StatusCode)
	if req.StallTimeout > 0 {
		c.stall = time.AfterFunc(req.StallTimeout, func() { c.stalled.Store(true); cancel() })
	}
	c.body = &closer{ReadCloser: resp.Body, cancel: cancel, stall: c.stall}
	resp.Body = c.body
	if resp.StatusCode/100 != 2 {
		c.httpError()
		return nil, c.finish(time.Now())
	}
	return c, nil
}

// userInfoAsHeader moves u's user info into h as Basic authorization unless h has one:
// what net/http would add itself, but where HeaderSecrets sees it, so a server echoing it
// cannot put it in a record; gorilla/websocket refuses user info in a URL.
func userInfoAsHeader(u *url.URL, h http.Header) {
	if u.User == nil {
		return
	}
	if h.Get("Authorization") == "" {
		pw, _ := u.User.Password()
		h.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pw)))
	}
	u.User = nil
}

// traced times the request on the wire: its write, and how long its new connection
// took to open (TCP, and TLS when https). The hooks run on the transport's goroutines;
// the first connection opened counts (a redirect to another host may open more).
func (c *call) traced(ctx context.Context) context.Context {
	since := func() int64 { return int64(time.Since(c.t0)) }
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		ConnectStart: func(string, string) { c.wire.dialStart.CompareAndSwap(0, since()) },
		ConnectDone: func(_, _ string, err error) {
			if err == nil && !c.tls {
				c.wire.open.CompareAndSwap(0, since())
			}
		},
		TLSHandshakeDone: func(_ tls.ConnectionState, err error) {
			if err == nil {
				c.wire.open.CompareAndSwap(0, since())
			}
		},
		WroteRequest: func(w httptrace.WroteRequestInfo) {
			if w.Err == nil {
				c.wire.wrote.Store(since())
			}
		},
	})
}

// wire is when the transport reached each step, as offsets from the call's start.
type wire struct{ dialStart, open, wrote atomic.Int64 }

// setWire puts the wire's times in the record; a connection that opened before its dial
// started (a clock step) counts as unknown.
func (c *call) setWire() {
	connect := time.Duration(0)
	if open := c.wire.open.Load(); open > 0 {
		connect = max(time.Duration(open-c.wire.dialStart.Load()), 0)
	}
	c.b.SetWire(time.Duration(max(c.wire.wrote.Load(), 0)), connect)
}

// closer releases the call's context and stall timer with the body, and counts the body
// bytes read (on the reading goroutine only).
type closer struct {
	io.ReadCloser
	cancel context.CancelFunc
	stall  *time.Timer
	n      int64
}

func (c *closer) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *closer) Close() error {
	if c.stall != nil {
		c.stall.Stop()
	}
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

// touch restarts the stall clock: the response just showed life.
func (c *call) touch() {
	if c.stall != nil {
		c.stall.Reset(c.req.StallTimeout)
	}
}

func (c *call) finish(end time.Time) *record.Record {
	c.resp.Body.Close()
	c.b.SetBytes(c.sent.Load(), c.body.n)
	c.setWire()
	return c.b.Finish(end)
}

func (c *call) httpError() { c.b.Fail(record.KindHTTPStatus, c.httpErrorText()) }

// httpErrorText says what a non-2xx answer said: its status and the message of its
// error body.
func (c *call) httpErrorText() string {
	body, _ := io.ReadAll(io.LimitReader(c.resp.Body, 64<<10))
	msg := string(bytes.TrimSpace(body))
	var ch chunk.Chunk
	if chunk.Decode(body, &ch) == nil {
		switch e := ch.Failure(); {
		case e != nil && e.Message != "":
			msg = e.Message
		case ch.Detail != nil:
			msg = ch.Detail.Message
		}
	}
	return fmt.Sprintf("HTTP %s: %s", c.resp.Status, msg)
}

// fail classifies a transport or reader error into a failure kind.
func (c *call) fail(err error) {
	kind, err := c.failure(err)
	c.b.Fail(kind, err.Error())
}

// failure is the kind of a transport or reader error and the error as a record says it.
func (c *call) failure(err error) (string, error) {
	kind := record.KindReset
	switch {
	case c.stalled.Load():
		kind, err = record.KindStall, fmt.Errorf("no event for %v", c.req.StallTimeout)
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(c.ctx.Err(), context.DeadlineExceeded):
		kind = record.KindTimeout
	case errors.Is(err, context.Canceled):
		kind = record.KindInterrupted
	case errors.Is(err, sse.ErrEventTooLarge):
		kind, err = record.KindOversized, fmt.Errorf("%w (options.omni.maxEventBytes)", err)
	case errors.Is(err, ErrBodyTooLarge):
		kind = record.KindOversized
	case errors.Is(err, sse.ErrNoDone):
		kind = record.KindTruncated
	case errors.Is(err, io.ErrUnexpectedEOF) && c.resp != nil && c.resp.ContentLength > 0 && c.body != nil && c.body.n < c.resp.ContentLength:
		// The server closed a body it had announced longer: truncated, not reset.
		kind, err = record.KindTruncated, fmt.Errorf("body ended at byte %d of its Content-Length %d", c.body.n, c.resp.ContentLength)
	case tlsclient.IsError(err):
		kind = record.KindTLS
	case c.resp == nil:
		kind = record.KindConnect
	}
	return kind, err
}

// readBody reads a whole non-streamed body, touching the stall clock on every read. Its
// buffer doubles, but never past the limit: a body at the limit would otherwise briefly
// hold twice it.
func (c *call) readBody() ([]byte, time.Time, error) {
	limit := int(c.req.Limits.Body)
	size := 32 << 10
	if n := c.resp.ContentLength; n > 0 && n <= int64(limit) {
		size = int(n) + 1 // +1: the read that sees the end
	}
	buf := make([]byte, 0, min(size, limit+1))
	for {
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), min(2*cap(buf), limit+1))
			copy(grown, buf)
			buf = grown
		}
		n, err := c.resp.Body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if n > 0 {
			c.touch()
		}
		if len(buf) > limit {
			return nil, time.Time{}, fmt.Errorf("%w: more than %d bytes (options.omni.maxBodyBytes)", ErrBodyTooLarge, limit)
		}
		if err == io.EOF {
			return buf, time.Now(), nil
		}
		if err != nil {
			return nil, time.Time{}, err
		}
	}
}

// events reads SSE events, calling fn for each until fn returns false, [DONE], or an
// error. It returns the arrival of the last event before [DONE].
func (c *call) events(fn func(ev sse.Event) bool) time.Time {
	rd := sse.NewReader(c.resp.Body, sse.WithMaxEventSize(c.req.Limits.Event))
	last := time.Now()
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			return last
		}
		if err != nil {
			c.fail(err)
			return time.Now()
		}
		c.touch()
		if ev.Done {
			return last
		}
		last = ev.Time
		if c.req.OnEvent != nil {
			c.req.OnEvent(ev.Time, ev.Data)
		}
		// A failed builder (a limit reached) ends the read as fn's false does.
		if !fn(ev) || c.b.Failed() {
			return last
		}
	}
}

// decode parses an event and fails the request on malformed JSON or an error event.
func (c *call) decode(ev sse.Event, ch *chunk.Chunk) bool {
	if err := chunk.Decode(ev.Data, ch); err != nil {
		c.b.Fail(record.KindMalformed, fmt.Sprintf("event at byte %d: %v", ev.Offset, err))
		return false
	}
	if e := ch.Failure(); e != nil {
		c.b.Fail(record.KindStreamError, fmt.Sprintf("event at byte %d: %s", ev.Offset, errorText(e)))
		return false
	}
	return true
}

func errorText(e *chunk.Error) string {
	s := e.Message
	if e.Type != "" {
		s = e.Type + ": " + s
	}
	if e.Code != "" {
		s += " (code " + e.Code + ")"
	}
	return s
}

func isEventStream(resp *http.Response) bool {
	ct := resp.Header.Get("Content-Type")
	return len(ct) >= 17 && ct[:17] == "text/event-stream"
}
