package record

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
)

func TestParseEdge(t *testing.T) {
	t.Parallel()
	for key, ok := range map[string]bool{"0->1:0": true, "12->3:7": true, "0->0:0": false, "-1->2:0": false,
		"0->1": false, "0-1:0": false, "a->b:c": false, "0->1:0:0": false, "": false,
		"+0->1:0": false, "00->1:0": false, "0->01:0": false, "0->1:+0": false, "0->1:00": false, " 0->1:0": false, "10->0:20": true, "0->1:" + string(make([]byte, 40)): false} {
		if _, _, _, got := ParseEdge(key); got != ok {
			t.Errorf("ParseEdge(%q) ok = %v", key, got)
		}
	}
}

// A snapshot keeps the edges and their elapsed times, drops what no clock can have
// (flagged) and ignores keys that are not edges, and a later snapshot replaces an
// edge: it is cumulative.
func TestBuilderKeepsEdges(t *testing.T) {
	t.Parallel()
	b := NewBuilder(EndpointSpeech, time.Now())
	b.OnStageMetrics(&chunk.Metrics{StreamEdges: chunk.Edges{
		"0->1:0":  {Values: map[string]float64{"producer_first_nonempty_emit_ms": 5, "first_chunk_seq": 2}},
		"1->2:0":  {Values: map[string]float64{"consumer_first_accept_ms": -1, "producer_first_nonempty_emit_ms": math.NaN()}},
		"summary": {Values: map[string]float64{"x_ms": 1}},
	}})
	b.OnStageMetrics(&chunk.Metrics{StreamEdges: chunk.Edges{"0->1:0": {
		Values: map[string]float64{"producer_first_nonempty_emit_ms": 5, "consumer_first_accept_ms": 9.5},
		Clocks: map[string]string{"producer_first_nonempty_emit": "orchestrator", "consumer_first_accept": "orchestrator", "gone": "x"}}}})
	r := b.Finish(time.Now())
	if len(r.Edges) != 2 || len(r.Edges["1->2:0"].Values) != 0 {
		t.Fatalf("edges %+v", r.Edges)
	}
	if v, ok := EdgeHandoffMS(r.Edges["0->1:0"]); !ok || v != 4.5 || len(r.Edges["0->1:0"].Clocks) != 2 {
		t.Errorf("hand-off %v %v of %+v", v, ok, r.Edges["0->1:0"])
	}
	if len(r.Anomalies) != 1 || r.Anomalies[0].Kind != AnomalyStageValue || r.Anomalies[0].Count != 2 {
		t.Errorf("anomalies %+v", r.Anomalies)
	}
}

// FuzzServerStats feeds hostile stage_durations and stream-edge snapshots through the
// lenient decoders and the builder: what a record keeps stays within the bounds
// (MaxStages, MaxStageValue, maxEdgeEvents) and survives the record file.
func FuzzServerStats(f *testing.F) {
	f.Add([]byte(`{"0->1:0":{"producer_first_nonempty_emit_ms":1,"consumer_first_accept_ms":2,"clock_domains":{"consumer_first_accept":"w"}}}`),
		[]byte(`{"Wan22I2VPipeline.diffuse":1.5,"queue_wait_ms":3}`), 2048.0)
	f.Add([]byte(`{"0->1:0":{"x_ms":-1e308},"9->8:1":[],"a":{}}`), []byte(`{"a":1e300,"b":-1,"c":true,"d":"1"}`), -1.0)
	f.Fuzz(func(t *testing.T, edges, durations []byte, peak float64) {
		var e chunk.Edges
		var d chunk.Durations
		if e.UnmarshalJSON(edges) != nil || d.UnmarshalJSON(durations) != nil {
			t.Fatal("a lenient decoder failed")
		}
		b := NewBuilder(EndpointChat, time.Now())
		b.OnStageMetrics(&chunk.Metrics{StreamEdges: e, StageDurations: d, PeakMemoryMB: chunk.Number(peak)})
		r := b.Finish(time.Now())
		if len(r.Edges) > MaxStages || len(r.Images.StageDurations) > MaxStages || !(r.Images.PeakMemoryMB >= 0 && r.Images.PeakMemoryMB <= MaxStageValue) {
			t.Fatalf("bounds: %d edges, %d durations, peak %g", len(r.Edges), len(r.Images.StageDurations), r.Images.PeakMemoryMB)
		}
		for key, edge := range r.Edges {
			if _, _, _, ok := ParseEdge(key); !ok || len(edge.Values) > maxEdgeEvents {
				t.Fatalf("edge %q kept: %+v", key, edge)
			}
			for _, v := range edge.Values {
				if !(v >= 0 && v <= MaxStageValue) {
					t.Fatalf("edge %q value %g", key, v)
				}
			}
			if v, ok := EdgeHandoffMS(edge); ok && !(v >= 0) {
				t.Fatalf("hand-off %g", v)
			}
		}
		data, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Decode(data); err != nil {
			t.Fatalf("a built record does not read back: %v\n%s", err, data)
		}
	})
}

// The profile's key order survives a tool that rewrites the file's JSON objects (their
// keys then sorted): stage_duration_keys lists it.
func TestDurationOrderSurvivesARewrite(t *testing.T) {
	t.Parallel()
	in := &Record{Endpoint: EndpointImages, Start: time.Unix(0, 0).UTC(),
		Images: Images{StageDurations: chunk.Durations{{Key: "text_encoder.forward", Value: 0.5}, {Key: "diffuse", Value: 2}, {Key: "a_ms", Value: 3}}}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var generic map[string]any
	if err := json.Unmarshal(b, &generic); err != nil {
		t.Fatal(err)
	}
	rewritten, _ := json.Marshal(generic)
	out, err := Decode(rewritten)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out.Images.StageDurations, in.Images.StageDurations) {
		t.Errorf("order lost: %v from %s", out.Images.StageDurations, rewritten)
	}
}
