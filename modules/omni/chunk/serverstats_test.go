package chunk

import (
	"reflect"
	"testing"
)

// A profile value that is not a number is skipped, as upstream skips it, and a field of
// the wrong shape is no field: neither fails the chunk.
func TestServerStatsAreLenient(t *testing.T) {
	t.Parallel()
	c := decode(t, `{"type":"speech.audio.done","stage_durations":{"diffuse":1.5,"flag":true,"name":"x","n":null},
		"peak_memory_mb":"big","usage":{"input_tokens":3,"peak_memory_mb":512.5},
		"metrics":{"stage_durations":[1,2],"peak_memory_mb":{"a":1},"stream_edges":{
			"0->1:0":{"from_stage":0,"producer_first_nonempty_emit_ms":12.5,"consumer_first_accept_ms":null,
				"clock_domains":{"producer_first_nonempty_emit":"orchestrator","x":3},"future":"text"},
			"bad":[1,2]}}}`)
	d, peak := c.ServerStats()
	if !reflect.DeepEqual(d, Durations{{"diffuse", 1.5}}) || peak != 512.5 {
		t.Errorf("server stats %v %v", d, peak)
	}
	m := c.Metrics
	if m.StageDurations != nil || m.PeakMemoryMB != 0 {
		t.Errorf("wrong shapes kept: %v %v", m.StageDurations, m.PeakMemoryMB)
	}
	want := Edges{"0->1:0": {Values: map[string]float64{"from_stage": 0, "producer_first_nonempty_emit_ms": 12.5},
		Clocks: map[string]string{"producer_first_nonempty_emit": "orchestrator"}}}
	if !reflect.DeepEqual(m.StreamEdges, want) {
		t.Errorf("edges %+v, want %+v", m.StreamEdges, want)
	}
	if c := decode(t, `{"metrics":{"stream_edges":"soon"}}`); c.Metrics.StreamEdges != nil {
		t.Errorf("a string snapshot kept: %v", c.Metrics.StreamEdges)
	}
}

// An edge written by MarshalJSON reads back equal (the record file's round trip).
func TestEdgeRoundTrip(t *testing.T) {
	t.Parallel()
	e := Edge{Values: map[string]float64{"consumer_first_accept_ms": 3.25}, Clocks: map[string]string{"consumer_first_accept": "worker"}}
	b, err := e.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var back Edge
	if err := back.UnmarshalJSON(b); err != nil || !reflect.DeepEqual(back, e) {
		t.Fatalf("%s read back as %+v (%v)", b, back, err)
	}
}

// stage_durations keep the server's key order (the reference's row order); a key sent
// twice keeps its first place and its last value, as a Python dict; the order survives a
// record file.
func TestDurationsKeepTheServersOrder(t *testing.T) {
	t.Parallel()
	var d Durations
	if err := d.UnmarshalJSON([]byte(`{"vae.decode":1,"diffuse":2,"vae.decode":3,"skip":"x","a_ms":4}`)); err != nil {
		t.Fatal(err)
	}
	want := Durations{{"vae.decode", 3}, {"diffuse", 2}, {"a_ms", 4}}
	if !reflect.DeepEqual(d, want) {
		t.Fatalf("%v, want %v", d, want)
	}
	b, err := d.MarshalJSON()
	if err != nil || string(b) != `{"vae.decode":3,"diffuse":2,"a_ms":4}` {
		t.Fatalf("%s %v", b, err)
	}
	if v, ok := d.Get("diffuse"); !ok || v != 2 {
		t.Errorf("Get = %v %v", v, ok)
	}
}
