package chunk

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// The server's own profile of a request (stage_durations, peak_memory_mb) and its
// stream-edge snapshot are read leniently: the reference skips a value that is not a
// number, and a field the schema does not fix yet (stream edges, vllm-project/vllm-omni
// #6472) must never fail a request that streamed well.

// Durations is a stage_durations object: profiler keys to seconds, or milliseconds for
// keys ending in _ms. Values that are not numbers are skipped, as upstream skips them;
// anything but an object is no durations.
type Durations map[string]float64

// UnmarshalJSON implements json.Unmarshaler.
func (d *Durations) UnmarshalJSON(b []byte) error {
	*d = lenientObject(b, number)
	return nil
}

// Number is a JSON number read leniently: anything else (a string, a bool, an object)
// is 0, which every reader of it takes as absent.
type Number float64

// UnmarshalJSON implements json.Unmarshaler.
func (n *Number) UnmarshalJSON(b []byte) error {
	f, _ := number(b)
	*n = Number(f)
	return nil
}

// number parses a JSON number; ok is false for any other value.
func number(v json.RawMessage) (float64, bool) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || !(v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	return f, err == nil
}

// Edge is one entry of a stream-edge snapshot: the first events of a hand-off from one
// stage to the next, as elapsed milliseconds from the origin its clock domain names
// (producer_first_nonempty_emit_ms, edge_first_send_complete_ms,
// consumer_first_accept_ms, consumer_first_nonempty_output_ms, and whatever later
// servers add). Values holds every numeric field; null (an event not seen) is absent.
type Edge struct {
	Values map[string]float64
	// Clocks is clock_domains: the clock domain of each event, by event name (the key
	// without _ms).
	Clocks map[string]string
}

// Edges is a stream-edge snapshot keyed "{from}->{to}:{segment}". Entries that are not
// objects are skipped, and anything but an object is no snapshot.
type Edges map[string]Edge

// UnmarshalJSON implements json.Unmarshaler.
func (e *Edges) UnmarshalJSON(b []byte) error {
	*e = lenientObject(b, func(v json.RawMessage) (Edge, bool) {
		var edge Edge
		return edge, edge.UnmarshalJSON(v) == nil
	})
	return nil
}

// UnmarshalJSON implements json.Unmarshaler: an object of numbers (null and other
// values skipped) and clock_domains.
func (e *Edge) UnmarshalJSON(b []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return err
	}
	*e = Edge{Values: map[string]float64{}}
	for name, v := range fields {
		if name == "clock_domains" {
			e.Clocks = clocks(v)
		} else if f, ok := number(v); ok {
			e.Values[name] = f
		}
	}
	return nil
}

// clocks reads clock_domains, keeping its string values.
func clocks(b json.RawMessage) map[string]string {
	return lenientObject(b, func(v json.RawMessage) (string, bool) {
		var s string
		return s, json.Unmarshal(v, &s) == nil
	})
}

// lenientObject is the entries of a JSON object that parse, nil for anything but an
// object or for none.
func lenientObject[V any](b []byte, parse func(json.RawMessage) (V, bool)) map[string]V {
	var raw map[string]json.RawMessage
	if json.Unmarshal(b, &raw) != nil {
		return nil
	}
	var out map[string]V
	for k, v := range raw {
		if x, ok := parse(v); ok {
			if out == nil {
				out = make(map[string]V, len(raw))
			}
			out[k] = x
		}
	}
	return out
}

// MarshalJSON writes the edge as the server sends it, which UnmarshalJSON reads back.
func (e Edge) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(e.Values)+1)
	for k, v := range e.Values {
		m[k] = v
	}
	if len(e.Clocks) > 0 {
		m["clock_domains"] = e.Clocks
	}
	return json.Marshal(m)
}

// ServerStats are the stage_durations and the peak memory a chunk carries outside its
// metrics object: at the top level, or (peak memory) in its usage, where upstream's
// benchmark also looks.
func (c *Chunk) ServerStats() (Durations, float64) {
	peak := float64(c.PeakMemoryMB)
	if c.Usage != nil {
		peak = max(peak, float64(c.Usage.PeakMemoryMB))
	}
	return c.StageDurations, peak
}
