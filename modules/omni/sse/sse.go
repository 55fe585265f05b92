// Package sse reads server-sent events and stamps each one with the monotonic time its
// last byte arrived, so per-chunk latencies are measured where the bytes land, not where
// a consumer gets around to them.
package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"
)

// DefaultMaxEventSize bounds one event (all its lines, comments included). vLLM-Omni sends
// whole WAV chunks as base64 in one data line, so the bound is generous.
const DefaultMaxEventSize = 16 << 20

// defaultBufferSize is the read buffer a Reader starts with; it grows to the longest line.
// A stream is held open for its whole response, often by a VU per stream: a chat chunk
// is a few hundred bytes, and bytes that arrive faster wait in the connection's buffer.
const defaultBufferSize = 1024

// ErrEventTooLarge reports an event longer than the reader's maximum size.
var ErrEventTooLarge = errors.New("sse: event too large")

// ErrNoDone reports a stream that ended before a `data: [DONE]` event. Streams without
// a [DONE] by design (vLLM-Omni speech SSE) end on a terminal event type instead, which
// the caller recognises before it asks for the next event.
var ErrNoDone = errors.New("sse: stream ended before [DONE]")

// Event is one dispatched event. Data is only valid until the next call to Next.
type Event struct {
	Name   string    // value of the last `event:` line, "" when absent
	ID     string    // value of the last `id:` line seen so far in the stream
	Data   []byte    // data lines joined by '\n'
	Done   bool      // Data is exactly "[DONE]"
	Time   time.Time // when the read holding the event's final line terminator returned (a CRLF counts at its CR)
	Offset int64     // byte offset of the event's first line in the stream
}

// Option configures a Reader.
type Option func(*Reader)

// WithClock replaces time.Now, for tests.
func WithClock(now func() time.Time) Option { return func(r *Reader) { r.now = now } }

// WithMaxEventSize sets the largest event, in bytes, the reader accepts.
func WithMaxEventSize(n int) Option { return func(r *Reader) { r.max = n } }

// WithBufferSize sets the initial read buffer size; it grows up to the max event size.
func WithBufferSize(n int) Option {
	return func(r *Reader) { r.buf = make([]byte, max(n, 16)) }
}

// Reader yields events from an io.Reader. It is not safe for concurrent use.
type Reader struct {
	src    io.Reader
	now    func() time.Time
	max    int
	buf    []byte
	r, w   int
	base   int64     // stream offset of buf[0]
	readAt time.Time // when the last Read returning bytes came back
	err    error     // sticky error from src

	bomSeen bool // the stream's start was checked for a byte order mark
	skipLF  bool // the previous line ended in '\r': a following '\n' belongs to it
	started bool // the current event has at least one line
	start   int64
	size    int
	hasData bool
	data    []byte
	name    []byte
	lastNm  string
	id      string
	done    bool
}

// NewReader returns a Reader over src.
func NewReader(src io.Reader, opts ...Option) *Reader {
	r := &Reader{src: src, now: time.Now, max: DefaultMaxEventSize}
	for _, o := range opts {
		o(r)
	}
	if r.buf == nil {
		r.buf = make([]byte, defaultBufferSize)
	}
	return r
}

// Offset is the number of stream bytes consumed so far.
func (r *Reader) Offset() int64 { return r.base + int64(r.r) }

// Next returns the next event. After a [DONE] event it returns io.EOF. A stream that ends
// without [DONE] yields ErrNoDone (wrapped with the offset); a failing source yields its
// error unchanged, so callers can tell a reset from a clean close.
func (r *Reader) Next() (Event, error) {
	if r.done {
		return Event{}, io.EOF
	}
	if !r.bomSeen {
		r.skipBOM()
	}
	r.data = r.data[:0]
	r.name = r.name[:0]
	r.hasData, r.started, r.size = false, false, 0
	for {
		line, ok, err := r.line()
		if err != nil {
			return Event{}, err
		}
		if !ok {
			continue
		}
		if len(line) == 0 {
			if !r.hasData {
				// A block without data lines dispatches nothing (comments, keep-alives).
				r.name, r.started, r.size = r.name[:0], false, 0
				continue
			}
			return r.dispatch(), nil
		}
		r.field(line)
	}
}

func (r *Reader) dispatch() Event {
	ev := Event{ID: r.id, Data: r.data, Time: r.readAt, Offset: r.start}
	if len(r.name) > 0 {
		// Streams repeat a handful of names; reuse the string to stay allocation-free.
		if string(r.name) != r.lastNm {
			r.lastNm = string(r.name)
		}
		ev.Name = r.lastNm
	}
	if string(r.data) == "[DONE]" {
		ev.Done, r.done = true, true
	}
	return ev
}

func (r *Reader) field(line []byte) {
	if line[0] == ':' {
		return
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "data":
		if r.hasData {
			r.data = append(r.data, '\n')
		}
		r.data = append(r.data, value...)
		r.hasData = true
	case "event":
		r.name = append(r.name[:0], value...)
	case "id":
		if bytes.IndexByte(value, 0) < 0 && string(value) != r.id {
			r.id = string(value)
		}
	}
}

// line returns the next complete line without its terminator. ok is false when a lone
// '\n' completing a previous "\r" was skipped.
func (r *Reader) line() (line []byte, ok bool, err error) {
	for {
		if r.r < r.w {
			if r.skipLF {
				r.skipLF = false
				if r.buf[r.r] == '\n' {
					r.r++
					return nil, false, nil
				}
			}
			seg := r.buf[r.r:r.w]
			i := bytes.IndexByte(seg, '\n')
			cut := seg
			if i >= 0 {
				cut = seg[:i]
			}
			if j := bytes.IndexByte(cut, '\r'); j >= 0 {
				i = j
				r.skipLF = true
			}
			if i >= 0 {
				if err := r.grow(i + 1); err != nil {
					return nil, false, err
				}
				line = seg[:i]
				r.r += i + 1
				return line, true, nil
			}
			if err := r.grow(0); err != nil {
				return nil, false, err
			}
		}
		if err := r.fill(); err != nil {
			return nil, false, err
		}
	}
}

// grow accounts n more bytes to the current event (n = 0 checks the pending partial
// line) and fails once the event exceeds the maximum size.
func (r *Reader) grow(n int) error {
	if !r.started {
		r.started, r.start = true, r.base+int64(r.r)
	}
	pending := r.w - r.r
	if n > 0 {
		r.size += n
		pending = 0
	}
	if r.size+pending > r.max {
		return fmt.Errorf("%w: event starting at byte %d exceeds %d bytes (at byte %d)",
			ErrEventTooLarge, r.start, r.max, r.start+int64(r.max))
	}
	return nil
}

// bom is UTF-8's byte order mark, which may begin a stream and is not part of its first
// line (WHATWG, "event stream interpretation").
var bom = []byte("\xef\xbb\xbf")

// skipBOM drops a byte order mark at the stream's start, however the reads split it.
func (r *Reader) skipBOM() {
	r.bomSeen = true
	for r.w-r.r < len(bom) && r.err == nil && bytes.HasPrefix(bom, r.buf[r.r:r.w]) {
		if r.fill() != nil {
			return
		}
	}
	if bytes.HasPrefix(r.buf[r.r:r.w], bom) {
		r.r += len(bom)
	}
}

func (r *Reader) fill() error {
	if r.err != nil {
		return r.end()
	}
	if r.r > 0 {
		n := copy(r.buf, r.buf[r.r:r.w])
		r.base += int64(r.r)
		r.r, r.w = 0, n
	}
	if r.w == len(r.buf) {
		nb := make([]byte, min(2*len(r.buf), r.max+1))
		copy(nb, r.buf[:r.w])
		r.buf = nb
	}
	for empty := 0; empty < 100; empty++ {
		n, err := r.src.Read(r.buf[r.w:])
		if n > 0 {
			r.readAt = r.now()
			r.w += n
			r.err = err
			return nil
		}
		if err != nil {
			r.err = err
			return r.end()
		}
	}
	r.err = io.ErrNoProgress
	return r.err
}

func (r *Reader) end() error {
	if r.err != io.EOF {
		return r.err
	}
	at := r.base + int64(r.w)
	if r.started || r.w > r.r {
		return fmt.Errorf("%w: cut inside the event starting at byte %d (stream length %d)", ErrNoDone, r.start, at)
	}
	return fmt.Errorf("%w: stream length %d", ErrNoDone, at)
}
