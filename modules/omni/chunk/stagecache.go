package chunk

import (
	"bytes"
	"encoding/json"
)

// vLLM-Omni repeats every finished stage's metrics on each later chunk, lists of
// latencies included, so a request's chunks mostly carry the same stage_metrics bytes.
// Decode remembers the last value and, when a chunk repeats it, swaps it for null before
// encoding/json runs and hands back the previous map.

var stageKey = []byte(`"stage_metrics":`)

// stageCache is the last stage_metrics value decoded into a Chunk.
type stageCache struct {
	raw []byte // the JSON value, copied
	m   map[string]Stage
	buf []byte // scratch for the input with the value replaced
}

// skip returns b with a repeated stage_metrics value replaced by null, and whether it did.
func (sc *stageCache) skip(b []byte) ([]byte, bool) {
	if sc.raw == nil {
		return b, false
	}
	at, ok := stageValue(b)
	if !ok || !bytes.HasPrefix(b[at:], sc.raw) {
		return b, false
	}
	out := append(sc.buf[:0], b[:at]...)
	out = append(out, "null"...)
	out = append(out, b[at+len(sc.raw):]...)
	sc.buf = out
	return out, true
}

// remember stores the stage_metrics value of b after a full decode into m.
func (sc *stageCache) remember(b []byte, m map[string]Stage) {
	sc.raw, sc.m = nil, nil
	if len(m) == 0 {
		return
	}
	at, ok := stageValue(b)
	if !ok {
		return
	}
	var raw json.RawMessage
	if json.NewDecoder(bytes.NewReader(b[at:])).Decode(&raw) == nil {
		sc.raw, sc.m = raw, m
	}
}

// stageValue finds the offset of the stage_metrics value. The key pattern cannot occur
// inside a JSON string, where its quotes would be escaped.
func stageValue(b []byte) (int, bool) {
	i := bytes.Index(b, stageKey)
	if i < 0 {
		return 0, false
	}
	at := i + len(stageKey)
	for at < len(b) && (b[at] == ' ' || b[at] == '\t' || b[at] == '\n' || b[at] == '\r') {
		at++
	}
	return at, at < len(b) && b[at] == '{'
}
