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

// Duration is one stage_durations entry.
type Duration struct {
	Key   string
	Value float64
}

// Durations is a stage_durations object: profiler keys to seconds, or milliseconds for
// keys ending in _ms, in the order the server sent them (the reference prints its rows in
// that order). Values that are not numbers are skipped, as upstream skips them; anything
// but an object is no durations. A key sent twice keeps its first place and its last
// value, as a Python dict does.
type Durations []Duration

// UnmarshalJSON implements json.Unmarshaler.
func (d *Durations) UnmarshalJSON(b []byte) error {
	*d = nil
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	at := map[string]int{}
	for dec.More() {
		t, err := dec.Token()
		var v json.RawMessage
		if err != nil || dec.Decode(&v) != nil {
			*d = nil
			return nil
		}
		key, _ := t.(string)
		f, ok := number(v)
		if !ok {
			continue
		}
		if i, seen := at[key]; seen {
			(*d)[i].Value = f
			continue
		}
		at[key] = len(*d)
		*d = append(*d, Duration{key, f})
	}
	return nil
}

// MarshalJSON writes the object in its order, which UnmarshalJSON reads back.
func (d Durations) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, e := range d {
		if i > 0 {
			b = append(b, ',')
		}
		k, err := json.Marshal(e.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(e.Value)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}

// Get is the value of key.
func (d Durations) Get(key string) (float64, bool) {
	for _, e := range d {
		if e.Key == key {
			return e.Value, true
		}
	}
	return 0, false
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
