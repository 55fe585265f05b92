// Package trace reads the request logs the trace-replay executor replays: JSON Lines,
// one request a line, each with its time offset, in omnik's format or the Mooncake
// trace's (docs/executors.md).
package trace

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Formats: where a line keeps its time and its session.
const (
	// Omnik lines have "offset_ms" and optionally "session", "body", "dataset" and
	// Mooncake's length fields.
	Omnik = "omnik"
	// Mooncake lines have "timestamp" (ms), "input_length", "output_length", "hash_ids"
	// and, as AIPerf writes them, an optional "session_id".
	Mooncake = "mooncake"
)

// MaxLine bounds one line, so a file without newlines is an error, not all of memory.
const MaxLine = 16 << 20

// MaxOffset bounds an offset: a larger one is almost always an absolute time (Unix
// milliseconds) that should have been made relative to the trace's start.
const MaxOffset = 30 * 24 * time.Hour

// Trace is a parsed request log, in time order. It is read-only once parsed, so one
// Trace serves every VU of a run.
type Trace struct {
	File    string
	Format  string
	Entries []Entry
	// Sessions are the session ids, indexed by Entry.Session.
	Sessions []string
}

// Entry is one request of the log.
type Entry struct {
	// Offset is the time from the trace's start, as recorded.
	Offset time.Duration
	// Session indexes Trace.Sessions; -1 for a request of no session.
	Session int32
	// Line is the entry's 1-based line in the file.
	Line int32
	// raw is the line's JSON object, validated, decoded again only when a script reads
	// the entry: the trace stays as small as its file.
	raw []byte
}

// Error is a trace that cannot be replayed: the file, the line (0 for the whole file)
// and why.
type Error struct {
	File   string
	Line   int
	Reason string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("trace %s:%d: %s", e.File, e.Line, e.Reason)
	}
	return fmt.Sprintf("trace %s: %s", e.File, e.Reason)
}

// Load reads the trace at path (gzip-compressed when it ends in .gz). format is Omnik,
// Mooncake or "" to tell from the first entry.
func Load(path, format string) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{File: path, Reason: err.Error()}
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, &Error{File: path, Reason: err.Error()}
		}
		defer gz.Close()
		r = gz
	}
	return Parse(r, path, format)
}

// Parse reads a trace from r; name is the file named in errors. Blank lines are
// skipped. Entries are sorted by offset, stably, so a log written in completion order
// replays in arrival order and entries at the same time keep their file order.
func Parse(r io.Reader, name, format string) (*Trace, error) {
	switch format {
	case "", Omnik, Mooncake:
	default:
		return nil, &Error{File: name, Reason: fmt.Sprintf("format %q: want %q or %q", format, Omnik, Mooncake)}
	}
	t := &Trace{File: name, Format: format}
	sessions := map[string]int32{}
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := readLine(br)
		if errors.Is(err, errLineTooLong) {
			return nil, &Error{File: name, Line: n, Reason: fmt.Sprintf("line longer than %d MiB", MaxLine>>20)}
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, &Error{File: name, Line: n, Reason: err.Error()}
		}
		if line = bytes.TrimSpace(line); len(line) > 0 {
			e, reason := t.parseEntry(line, sessions)
			if reason != "" {
				return nil, &Error{File: name, Line: n, Reason: reason}
			}
			e.Line = int32(min(n, math.MaxInt32))
			t.Entries = append(t.Entries, e)
		}
		if err != nil {
			break
		}
	}
	if len(t.Entries) == 0 {
		return nil, &Error{File: name, Reason: "no entries (want one JSON object a line)"}
	}
	slices.SortStableFunc(t.Entries, func(a, b Entry) int { return cmp.Compare(a.Offset, b.Offset) })
	return t, nil
}

var errLineTooLong = errors.New("line too long")

// readLine returns the next line without its newline, reading at most MaxLine bytes of it.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(line)+len(frag) > MaxLine+1 {
			return nil, errLineTooLong
		}
		line = append(line, frag...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return bytes.TrimSuffix(line, []byte("\n")), err
		}
	}
}

// line holds the keys omnik reads, undecoded: one pass of encoding/json over the line,
// then each value is checked on its own bytes, which keeps a 100 000-line trace fast.
type line struct {
	OffsetMS     json.RawMessage `json:"offset_ms"`
	Timestamp    json.RawMessage `json:"timestamp"`
	Session      json.RawMessage `json:"session"`
	SessionID    json.RawMessage `json:"session_id"`
	Body         json.RawMessage `json:"body"`
	Dataset      json.RawMessage `json:"dataset"`
	InputLength  json.RawMessage `json:"input_length"`
	OutputLength json.RawMessage `json:"output_length"`
	HashIDs      json.RawMessage `json:"hash_ids"`
	Delay        json.RawMessage `json:"delay"`
}

// parseEntry validates one line; a non-empty reason says what is wrong with it.
func (t *Trace) parseEntry(raw []byte, sessions map[string]int32) (Entry, string) {
	var l line
	if raw[0] != '{' {
		return Entry{}, "want a JSON object"
	}
	if err := json.Unmarshal(raw, &l); err != nil {
		return Entry{}, "want a JSON object" + jsonReason(err)
	}
	// A null is an absent key, as converted tables (parquet, CSV) write them.
	for _, v := range []*json.RawMessage{&l.OffsetMS, &l.Timestamp, &l.Session, &l.SessionID, &l.Body, &l.Dataset, &l.InputLength, &l.OutputLength, &l.HashIDs, &l.Delay} {
		if string(*v) == "null" {
			*v = nil
		}
	}
	if t.Format == "" {
		switch {
		case l.OffsetMS != nil && l.Timestamp != nil:
			return Entry{}, `both "offset_ms" and "timestamp": set the scenario's "format" to "omnik" or "mooncake"`
		case l.Timestamp != nil:
			t.Format = Mooncake
		default:
			t.Format = Omnik
		}
	}
	e := Entry{Session: -1, raw: slices.Clone(raw)}
	key, at := "offset_ms", l.OffsetMS
	if t.Format == Mooncake {
		key, at = "timestamp", l.Timestamp
	}
	if at == nil {
		reason := fmt.Sprintf("no %q (milliseconds from the trace's start; %s format)", key, t.Format)
		if l.Delay != nil {
			reason += `; turns timed by "delay" are not supported`
		}
		return e, reason
	}
	ms, err := strconv.ParseFloat(string(at), 64)
	if err != nil {
		return e, fmt.Sprintf("%q must be a number of milliseconds, got %s", key, abbreviate(at))
	}
	if !(ms >= 0 && ms <= float64(MaxOffset/time.Millisecond)) {
		return e, fmt.Sprintf("%q %v ms: want 0 to %v ms (%s); make absolute times relative to the first", key, ms, int64(MaxOffset/time.Millisecond), MaxOffset)
	}
	e.Offset = time.Duration(ms * float64(time.Millisecond))
	for _, f := range []struct {
		key string
		v   json.RawMessage
	}{{"input_length", l.InputLength}, {"output_length", l.OutputLength}, {"dataset", l.Dataset}} {
		if n, err := strconv.ParseInt(string(f.v), 10, 64); f.v != nil && (err != nil || n < 0) {
			return e, fmt.Sprintf("%q must be a non-negative integer, got %s", f.key, abbreviate(f.v))
		}
	}
	if l.HashIDs != nil && !intArray(l.HashIDs) {
		return e, fmt.Sprintf(`"hash_ids" must be an array of integers, got %s`, abbreviate(l.HashIDs))
	}
	if l.Body != nil && l.Body[0] != '{' {
		return e, fmt.Sprintf(`"body" must be a JSON object (the request to send), got %s`, abbreviate(l.Body))
	}
	id, reason := sessionID(l)
	if reason != "" {
		return e, reason
	}
	if id != "" {
		s, ok := sessions[id]
		if !ok {
			s = int32(len(t.Sessions))
			sessions[id] = s
			t.Sessions = append(t.Sessions, id)
		}
		e.Session = s
	}
	return e, ""
}

// intArray reports whether v, valid JSON, is an array of integers.
func intArray(v json.RawMessage) bool {
	if len(v) < 2 || v[0] != '[' || v[len(v)-1] != ']' {
		return false
	}
	inner := v[1 : len(v)-1]
	if len(bytes.TrimSpace(inner)) == 0 {
		return true
	}
	for item := range bytes.SplitSeq(inner, []byte(",")) {
		if _, err := strconv.ParseInt(string(bytes.TrimSpace(item)), 10, 64); err != nil {
			return false
		}
	}
	return true
}

// sessionID reads "session" or "session_id", a string or a number.
func sessionID(l line) (string, string) {
	for _, f := range []struct {
		key string
		v   json.RawMessage
	}{{"session", l.Session}, {"session_id", l.SessionID}} {
		if f.v == nil {
			continue
		}
		var s string
		if json.Unmarshal(f.v, &s) == nil {
			return s, ""
		}
		if f.v[0] == '-' || f.v[0] >= '0' && f.v[0] <= '9' {
			return string(f.v), ""
		}
		return "", fmt.Sprintf("%q must be a string or a number, got %s", f.key, abbreviate(f.v))
	}
	return "", ""
}

func jsonReason(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf(" (%s at byte %d)", se, se.Offset)
	}
	return ""
}

// abbreviate keeps a value short enough for an error message.
func abbreviate(v []byte) string {
	if len(v) > 40 {
		return string(v[:40]) + "…"
	}
	return string(v)
}

// Span is the offset of the last entry.
func (t *Trace) Span() time.Duration { return t.Entries[len(t.Entries)-1].Offset }

// Object is entry i as scripts see it: the line's JSON object, plus "index" (its place
// in time order), "line", "offset_ms" (as recorded, whatever the format's key) and
// "session" (the id, when it has one).
func (t *Trace) Object(i int) map[string]any {
	e := &t.Entries[i]
	var m map[string]any
	// Validated when parsed, so it decodes.
	_ = json.Unmarshal(e.raw, &m)
	m["index"], m["line"] = i, int(e.Line)
	m["offset_ms"] = float64(e.Offset) / float64(time.Millisecond)
	if e.Session >= 0 {
		m["session"] = t.Sessions[e.Session]
	}
	return m
}

// Ref is one entry of a trace, read only when a script asks (js.TraceEntry).
type Ref struct {
	Trace *Trace
	Index int
}

// Object is the entry as a plain object.
func (r Ref) Object() map[string]any { return r.Trace.Object(r.Index) }
