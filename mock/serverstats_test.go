package mock

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

// speechDoneMetrics posts a speech request over SSE and returns its done event's metrics.
func speechDoneMetrics(t *testing.T, u, extra string) *metricsObject {
	t.Helper()
	evs := mustSSE(t, post(t, u+speechURL, `{"input":"Hello there, how are you today?","stream_format":"sse","response_format":"pcm"`+extra+`}`))
	var done struct {
		Type    string
		Metrics *metricsObject
	}
	if err := json.Unmarshal([]byte(evs[len(evs)-1].data), &done); err != nil || done.Type != "speech.audio.done" {
		t.Fatalf("last event %+v: %v", evs[len(evs)-1], err)
	}
	return done.Metrics
}

// With return_stage_metrics, speech over SSE carries every stage, the profile and the
// stream-edge snapshot on speech.audio.done; without it, none. The edges and the peak
// memory come from the plan: the same request gets the same ones.
func TestSpeechSSEStageMetrics(t *testing.T) {
	t.Parallel()
	_, u := startServer(t, WithProfile("tts"))
	if m := speechDoneMetrics(t, u, ""); m != nil {
		t.Fatalf("metrics without asking: %+v", m)
	}
	m := speechDoneMetrics(t, u, `,"return_stage_metrics":true`)
	if len(m.StageMetrics) != 2 || m.PeakMemoryMB <= 4096 {
		t.Fatalf("metrics %+v", m)
	}
	// The profile lists the stages in pipeline order, each with its generation time.
	want := fmt.Sprintf(`{"talker_gen_ms":%v,"code2wav_gen_ms":%v}`, m.StageMetrics["0"].StageGenTimeMs, m.StageMetrics["1"].StageGenTimeMs)
	if string(m.StageDurations) != want {
		t.Errorf("stage_durations %s, want %s", m.StageDurations, want)
	}
	e, ok := m.StreamEdges["0->1:0"]
	if !ok || e.FromStage != 0 || e.ToStage != 1 || e.ClockDomains["consumer_first_accept"] != "orchestrator" ||
		!(e.ProducerEmit < e.SendComplete && e.SendComplete < e.ConsumerAccept && e.ConsumerAccept <= e.ConsumerOutput) {
		t.Fatalf("edge %+v", e)
	}
	again := speechDoneMetrics(t, u, `,"return_stage_metrics":true`)
	if !reflect.DeepEqual(again.StreamEdges, m.StreamEdges) || again.PeakMemoryMB != m.PeakMemoryMB {
		t.Errorf("the same request at the same load: edges %+v then %+v", m.StreamEdges, again.StreamEdges)
	}
}

// A stage that waits for its whole upstream (bagel's dit) accepts its hand-off only when
// the thinker finished: that hand-off is the slow one, as a real pipeline's would be.
func TestStreamEdgeShowsAWaitingStage(t *testing.T) {
	t.Parallel()
	_, u := startServer(t, WithProfile("bagel"))
	resp := post(t, u+"/v1/images/generations", `{"prompt":"a fox","size":"64x64","num_inference_steps":2,"return_stage_metrics":true}`)
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d %v", resp.StatusCode, err)
	}
	var body struct {
		PeakMemoryMB float64        `json:"peak_memory_mb"`
		Metrics      *metricsObject `json:"metrics"`
	}
	if err := json.Unmarshal(b, &body); err != nil || body.Metrics == nil {
		t.Fatalf("%v: %.300s", err, b)
	}
	e := body.Metrics.StreamEdges["0->1:0"]
	thinkerEnd := body.Metrics.StageMetrics["0"].StageGenTimeMs
	if handoff := e.ConsumerAccept - e.ProducerEmit; handoff < thinkerEnd/2 || body.PeakMemoryMB != body.Metrics.PeakMemoryMB {
		t.Errorf("hand-off %v ms against a thinker of %v ms; peak %v vs %v", handoff, thinkerEnd, body.PeakMemoryMB, body.Metrics.PeakMemoryMB)
	}
	if !strings.Contains(string(b), `"stream_edges"`) {
		t.Error("no snapshot in the body")
	}
}
