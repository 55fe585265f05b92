package sse

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

type want struct {
	name, id, data string
	done           bool
}

// readAll drains r, returning events (data copied) and the final error.
func readAll(r *Reader) ([]Event, error) {
	var evs []Event
	for {
		ev, err := r.Next()
		if err != nil {
			return evs, err
		}
		ev.Data = bytes.Clone(ev.Data)
		evs = append(evs, ev)
	}
}

// chop returns a reader that hands out src in pieces of 1..n bytes.
type chop struct {
	src []byte
	rng *rand.Rand
	n   int
}

func (c *chop) Read(p []byte) (int, error) {
	if len(c.src) == 0 {
		return 0, io.EOF
	}
	k := min(1+c.rng.IntN(c.n), len(c.src), len(p))
	copy(p, c.src[:k])
	c.src = c.src[k:]
	return k, nil
}

var cases = []struct {
	name   string
	stream string
	want   []want
	err    error // final error after the events; nil means io.EOF after [DONE]
}{
	{"chat stream", "data: {\"a\":1}\n\ndata: {\"b\":2}\n\ndata: [DONE]\n\n",
		[]want{{data: `{"a":1}`}, {data: `{"b":2}`}, {data: "[DONE]", done: true}}, nil},
	// A byte order mark is not part of the first line; only one at the start is skipped.
	{"byte order mark", "\xef\xbb\xbfdata: x\n\n\xef\xbb\xbfdata: y\n\ndata: [DONE]\n\n",
		[]want{{data: "x"}, {data: "[DONE]", done: true}}, nil},
	{"byte order mark only", "\xef\xbb", nil, ErrNoDone},
	{"crlf endings", "data: x\r\n\r\ndata: [DONE]\r\n\r\n",
		[]want{{data: "x"}, {data: "[DONE]", done: true}}, nil},
	{"cr endings", "data: x\r\rdata: [DONE]\r\r",
		[]want{{data: "x"}, {data: "[DONE]", done: true}}, nil},
	{"mixed endings", "data: a\r\ndata: b\rdata: c\n\r\ndata: [DONE]\n\n",
		[]want{{data: "a\nb\nc"}, {data: "[DONE]", done: true}}, nil},
	{"no space after colon", "data:x\n\ndata:[DONE]\n\n",
		[]want{{data: "x"}, {data: "[DONE]", done: true}}, nil},
	{"only the first space is stripped", "data:  x \n\ndata: [DONE]\n\n",
		[]want{{data: " x "}, {data: "[DONE]", done: true}}, nil},
	{"comments and keep-alives dispatch nothing", ": ping\n\n:\n\ndata: x\n: mid\n\ndata: [DONE]\n\n",
		[]want{{data: "x"}, {data: "[DONE]", done: true}}, nil},
	{"speech events with names", "event: speech.audio.delta\ndata: {\"type\":\"speech.audio.delta\"}\n\nevent: speech.audio.done\ndata: {}\n\n",
		[]want{{name: "speech.audio.delta", data: `{"type":"speech.audio.delta"}`}, {name: "speech.audio.done", data: "{}"}}, ErrNoDone},
	{"name resets per event, id persists", "event: a\nid: 7\ndata: 1\n\ndata: 2\n\ndata: [DONE]\n\n",
		[]want{{name: "a", id: "7", data: "1"}, {id: "7", data: "2"}, {id: "7", data: "[DONE]", done: true}}, nil},
	{"empty data line", "data\n\ndata:\ndata:\n\ndata: [DONE]\n\n",
		[]want{{data: ""}, {data: "\n"}, {data: "[DONE]", done: true}}, nil},
	{"unknown fields ignored", "retry: 10\nfoo: bar\ndata: x\n\ndata: [DONE]\n\n",
		[]want{{data: "x"}, {data: "[DONE]", done: true}}, nil},
	{"[DONE] with spaces is data", "data: [DONE] \n\ndata: [DONE]\n\n",
		[]want{{data: "[DONE] "}, {data: "[DONE]", done: true}}, nil},
	{"bytes after [DONE] are not read", "data: [DONE]\n\ngarbage",
		[]want{{data: "[DONE]", done: true}}, nil},
	{"eof before [DONE]", "data: x\n\n", []want{{data: "x"}}, ErrNoDone},
	{"eof inside an event", "data: x\n\ndata: y\n", []want{{data: "x"}}, ErrNoDone},
	{"eof inside a line", "data: x\n\ndata: y", []want{{data: "x"}}, ErrNoDone},
	{"empty stream", "", nil, ErrNoDone},
	{"error event then done", "data: {\"error\":{\"message\":\"boom\",\"code\":500}}\n\ndata: [DONE]\n\n",
		[]want{{data: `{"error":{"message":"boom","code":500}}`}, {data: "[DONE]", done: true}}, nil},
}

func check(t *testing.T, label string, evs []Event, err error, w []want, werr error) {
	t.Helper()
	if werr == nil {
		werr = io.EOF
	}
	if !errors.Is(err, werr) {
		t.Fatalf("%s: err = %v, want %v", label, err, werr)
	}
	if len(evs) != len(w) {
		t.Fatalf("%s: got %d events, want %d: %+v", label, len(evs), len(w), evs)
	}
	for i, ev := range evs {
		g := want{ev.Name, ev.ID, string(ev.Data), ev.Done}
		if g != w[i] {
			t.Fatalf("%s: event %d = %+v, want %+v", label, i, g, w[i])
		}
	}
}

func TestReaderEveryByteBoundary(t *testing.T) {
	t.Parallel()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := []byte(tc.stream)
			evs, err := readAll(NewReader(bytes.NewReader(s)))
			check(t, "whole", evs, err, tc.want, tc.err)
			evs, err = readAll(NewReader(iotest.OneByteReader(bytes.NewReader(s))))
			check(t, "one byte", evs, err, tc.want, tc.err)
			for i := 0; i <= len(s); i++ {
				src := io.MultiReader(bytes.NewReader(s[:i]), bytes.NewReader(s[i:]))
				evs, err := readAll(NewReader(src, WithBufferSize(16)))
				check(t, "split", evs, err, tc.want, tc.err)
			}
			for seed := range uint64(20) {
				src := &chop{src: s, rng: rand.New(rand.NewPCG(seed, 1)), n: 7}
				evs, err := readAll(NewReader(src, WithBufferSize(16)))
				check(t, "chop", evs, err, tc.want, tc.err)
			}
		})
	}
}

// A stream split in two reads: events whose final terminator is in the second piece
// carry the second read's time.
func TestReaderStampsArrivalOfFinalTerminator(t *testing.T) {
	t.Parallel()
	s := []byte("data: a\n\ndata: b\r\n\r\ndata: [DONE]\n\n")
	// index of the first byte of each event's final line terminator
	ends := []int{8, 18, 33}
	for i := 0; i <= len(s); i++ {
		var tick int64
		clock := func() time.Time { tick++; return time.Unix(0, tick) }
		src := io.MultiReader(bytes.NewReader(s[:i]), bytes.NewReader(s[i:]))
		evs, err := readAll(NewReader(src, WithClock(clock)))
		if err != io.EOF || len(evs) != 3 {
			t.Fatalf("split %d: %d events, err %v", i, len(evs), err)
		}
		for k, ev := range evs {
			want := int64(2)
			if ends[k] < i || i == 0 {
				want = 1 // the whole event came with the first read that returned bytes
			}
			if got := ev.Time.UnixNano(); got != want {
				t.Errorf("split %d event %d: stamped by read %d, want %d", i, k, got, want)
			}
		}
	}
}

func TestReaderOffsets(t *testing.T) {
	t.Parallel()
	s := ": hi\n\ndata: a\n\ndata: [DONE]\n\n"
	evs, _ := readAll(NewReader(strings.NewReader(s)))
	if evs[0].Offset != 6 || evs[1].Offset != 15 {
		t.Fatalf("offsets %d %d, want 6 15", evs[0].Offset, evs[1].Offset)
	}
}

func TestReaderOversizedEvent(t *testing.T) {
	t.Parallel()
	big := "data: " + strings.Repeat("x", 100) + "\n\n"
	s := []byte("data: ok\n\n" + big + "data: [DONE]\n\n")
	for i := 0; i <= len(s); i++ {
		src := io.MultiReader(bytes.NewReader(s[:i]), bytes.NewReader(s[i:]))
		evs, err := readAll(NewReader(src, WithMaxEventSize(64), WithBufferSize(16)))
		if !errors.Is(err, ErrEventTooLarge) || len(evs) != 1 {
			t.Fatalf("split %d: %d events, err %v", i, len(evs), err)
		}
		if !strings.Contains(err.Error(), "starting at byte 10") {
			t.Fatalf("error lacks the offset: %v", err)
		}
	}
	// Many short lines add up too.
	s = []byte(strings.Repeat("data: 0123456789\n", 10) + "\n")
	if _, err := readAll(NewReader(bytes.NewReader(s), WithMaxEventSize(64))); !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("multi-line event: err %v", err)
	}
	// An event of exactly the maximum size passes.
	s = []byte("data: " + strings.Repeat("x", 56) + "\n\n")
	if evs, err := readAll(NewReader(bytes.NewReader(s), WithMaxEventSize(len(s)))); len(evs) != 1 || !errors.Is(err, ErrNoDone) {
		t.Fatalf("event at the limit: %d events, err %v", len(evs), err)
	}
}

func TestReaderSourceErrorPassesThrough(t *testing.T) {
	t.Parallel()
	boom := errors.New("connection reset by peer")
	src := io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(boom))
	evs, err := readAll(NewReader(src))
	if len(evs) != 1 || !errors.Is(err, boom) || errors.Is(err, ErrNoDone) {
		t.Fatalf("%d events, err %v", len(evs), err)
	}
}

func TestReaderNoProgress(t *testing.T) {
	t.Parallel()
	_, err := NewReader(zeroReader{}).Next()
	if !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("err %v", err)
	}
}

type zeroReader struct{}

func (zeroReader) Read([]byte) (int, error) { return 0, nil }
