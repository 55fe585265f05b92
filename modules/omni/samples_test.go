package omni

import (
	"strconv"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/modules/omni/chunk"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

func TestSamplesCountBytesOnTheBuiltinDataMetrics(t *testing.T) {
	t.Parallel()
	reg := metrics.NewRegistry()
	builtin := metrics.RegisterBuiltins(reg)
	m := RegisterMetrics(reg)
	ok := &record.Record{Endpoint: record.EndpointChat, Status: 200, Start: time.Now(), BytesSent: 120, BytesReceived: 4096}
	failed := &record.Record{Endpoint: record.EndpointChat, Status: 503, Start: time.Now(), BytesSent: 80, BytesReceived: 10,
		Err: &record.Error{Kind: record.KindHTTPStatus, Message: "HTTP 503"}}
	for _, tc := range []struct {
		r              *record.Record
		sent, received float64
	}{{ok, 120, 4096}, {failed, 80, 10}} {
		got := map[*metrics.Metric][]float64{}
		for _, s := range m.samples(tc.r) {
			got[s.Metric] = append(got[s.Metric], s.Value)
		}
		if s, r := got[builtin.DataSent], got[builtin.DataReceived]; len(s) != 1 || s[0] != tc.sent || len(r) != 1 || r[0] != tc.received {
			t.Errorf("status %d: data_sent %v data_received %v, want [%g] [%g]", tc.r.Status, s, r, tc.sent, tc.received)
		}
	}
}

func TestChatAgainstSimulatorCountsData(t *testing.T) {
	t.Parallel()
	k, _, _ := runScript(t, `import omni from 'omni';
export default async function () {
  await omni.chat({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 });
}`)
	sent, received := k.values("data_sent", "", ""), k.values("data_received", "", "")
	if len(sent) != 1 || sent[0] < float64(len(`{"messages":[{"role":"user","content":"hi"}]}`)) || len(received) != 1 || received[0] < 100 {
		t.Errorf("data_sent %v data_received %v", sent, received)
	}
}

// The samples of a record fit the slice sampleCount sizes, so it is allocated once.
func TestSampleCountHoldsARecordsSamples(t *testing.T) {
	t.Parallel()
	m := RegisterMetrics(metrics.NewRegistry())
	r := &record.Record{Endpoint: record.EndpointChat, Status: 200, Start: time.Now(), IntendedStart: time.Now(),
		End: time.Second, Usage: record.Usage{Prompt: 10, Completion: 48}}
	for i := range 48 {
		r.TextChunks = append(r.TextChunks, record.TextChunk{At: time.Duration(80+5*i) * time.Millisecond, Bytes: 5, Tokens: -1})
	}
	r.AudioChunks = []record.AudioChunk{{At: 200 * time.Millisecond, Bytes: 9600, Frames: 4800}}
	r.Audio = record.Audio{Format: "pcm", SampleRate: 24000, Channels: 1, FrameBytes: 2, Frames: 4800, Bytes: 9600, Seconds: 0.2}
	for i := range 3 {
		at := time.Duration(i+1) * 100 * time.Millisecond
		r.Utterances = append(r.Utterances, record.Utterance{Index: i, Start: at, Ready: at, FirstAudio: at + 50*time.Millisecond,
			Done: at + 90*time.Millisecond, Frames: 2400, Seconds: 0.1})
	}
	values := map[string]float64{}
	for _, k := range []string{"stage_gen_time_ms", "postprocess_time_ms", "serving_time_to_first_output_ms", "vllm_ttft_ms",
		"vllm_tpot_ms", "vllm_itl_ms", "time_per_output_unit_ms", "inter_output_latency_ms", "audio_rtf", "audio_duration_s"} {
		values[k] = 5
	}
	values["output_unit_count"] = 48
	gaps := make([]float64, 47)
	r.Stages = map[string]chunk.Stage{}
	for id, name := range []string{"thinker", "talker", "code2wav"} {
		r.Stages[strconv.Itoa(id)] = chunk.Stage{ID: id, Name: name, OutputUnitType: "text", FinalOutputType: "text", Values: values,
			Lists: map[string][]float64{"vllm_itls_ms": gaps, "inter_output_latencies_ms": gaps}}
	}
	if got, size := len(m.samples(r)), sampleCount(r); got > size {
		t.Errorf("the record became %d samples; sampleCount sized %d", got, size)
	}
}

// A realtime turn's session counters and every event of every edge fit too: up to
// record's 16 events an edge plus its hand-off.
func TestSampleCountHoldsRealtimeAndEdgeSamples(t *testing.T) {
	t.Parallel()
	m := RegisterMetrics(metrics.NewRegistry())
	r := &record.Record{Endpoint: record.EndpointRealtime, Status: 101, Start: time.Now(), End: time.Second,
		Realtime: &record.Turn{BargeIn: true, Last: true, Completed: 2, Planned: 2}, Edges: map[string]chunk.Edge{}}
	for e := range 8 {
		values := map[string]float64{record.EdgeProducerEmit + "_ms": 1, record.EdgeConsumerAccept + "_ms": 2}
		for i := len(values); i < 16; i++ {
			values["event_"+strconv.Itoa(i)+"_ms"] = float64(i)
		}
		r.Edges[strconv.Itoa(e)+"->"+strconv.Itoa(e+1)+":0"] = chunk.Edge{Values: values}
	}
	if got, size := len(m.samples(r)), sampleCount(r); got > size {
		t.Errorf("the record became %d samples; sampleCount sized %d", got, size)
	}
}
