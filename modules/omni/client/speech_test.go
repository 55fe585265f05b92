package client

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
	"github.com/omnik-dev/omnik/modules/omni/record"
	"github.com/omnik-dev/omnik/modules/omni/wav"
)

var pcm24k = chunk.AudioSpec{Format: "pcm", Raw: wav.PCM16(24000, 1)}

func TestSpeechRawWAVStreamEveryByteBoundary(t *testing.T) {
	t.Parallel()
	// vLLM-Omni's raw wav stream: one header with both sizes 0xFFFFFFFF, then PCM16.
	stream := wavBytes(24000, 120, 0xFFFFFFFF)
	stream[4], stream[5], stream[6], stream[7] = 0xFF, 0xFF, 0xFF, 0xFF
	everySplit(t, Speech, replay{header: map[string]string{"Content-Type": "audio/wav"}, pieces: [][]byte{stream}}, Request{Audio: pcm24k}, func(split int, r *record.Record) {
		if !r.OK() || r.Audio.Format != "wav" || r.Audio.Frames != 120 || r.Audio.Bytes != 240 || r.Audio.Seconds != 0.005 {
			t.Fatalf("split %d: %+v %+v", split, r.Err, r.Audio)
		}
		var sum int64
		for _, c := range r.AudioChunks {
			sum += c.Bytes
		}
		if sum != 240 || len(r.AudioChunks) > 2 {
			t.Fatalf("split %d: chunks %+v", split, r.AudioChunks)
		}
	})
}

func TestSpeechRawPCM(t *testing.T) {
	t.Parallel()
	// Odd-sized reads: frames are counted on the running total, not per read.
	pieces := [][]byte{make([]byte, 4801), make([]byte, 4799), make([]byte, 9600)}
	r := do(t, Speech, replay{header: map[string]string{"Content-Type": "audio/pcm", "X-Vllm-Omni-Input-Tokens": "18", "X-Vllm-Omni-Output-Tokens": "77", "X-Vllm-Omni-Total-Tokens": "95"}, pieces: pieces},
		Request{Audio: chunk.AudioSpec{Raw: wav.PCM16(24000, 1), Keep: true}})
	if !r.OK() || r.Audio.Frames != 9600 || r.Audio.Seconds != 0.4 || len(r.Audio.Samples) != 19200 || r.Audio.Format != "pcm" {
		t.Fatalf("%+v %+v", r.Err, r.Audio)
	}
	if r.Usage != (record.Usage{Prompt: 18, Completion: 77, Total: 95}) || r.Text != "" {
		t.Fatalf("usage %+v", r.Usage)
	}
	if _, ok := record.AudioUnderrun(r); !ok {
		t.Fatal("a raw speech stream has a continuity measurement")
	}
	if rtf, ok := record.AudioRTF(r); !ok || math.Abs(rtf-r.End.Seconds()/0.4) > 1e-12 {
		t.Fatalf("rtf %v", rtf)
	}
}

func TestSpeechRawFailures(t *testing.T) {
	t.Parallel()
	r := do(t, Speech, replay{header: map[string]string{"Content-Type": "audio/wav"}, pieces: [][]byte{[]byte("RIFF\xff\xff\xff\xffWAVEfmt ")}}, Request{Audio: pcm24k})
	if r.OK() || r.Err.Kind != record.KindWAVBroken {
		t.Fatalf("cut header: %+v", r.Err)
	}
	r = do(t, Speech, replay{header: map[string]string{"Content-Type": "audio/wav"}, pieces: [][]byte{[]byte("ID3\x04 not a wav at all")}}, Request{Audio: pcm24k})
	if r.OK() || r.Err.Kind != record.KindWAVBroken || !strings.Contains(r.Err.Message, "not a RIFF/WAVE") {
		t.Fatalf("not wav: %+v", r.Err)
	}
	r = do(t, Speech, replay{header: map[string]string{"Content-Type": "audio/pcm"}, pieces: [][]byte{make([]byte, 100)}, reset: true}, Request{Audio: pcm24k})
	if r.OK() || r.Err.Kind != record.KindReset {
		t.Fatalf("reset: %+v", r.Err)
	}
	for _, body := range []string{"", string(wavBytes(24000, 0, 0))} {
		r = do(t, Speech, replay{header: map[string]string{"Content-Type": "audio/wav"}, pieces: [][]byte{[]byte(body)}}, Request{Audio: pcm24k})
		if r.OK() || r.Err.Kind != record.KindTruncated {
			t.Fatalf("a 200 of %d bytes and no sample: %+v", len(body), r.Err)
		}
	}
}

func speechEvents(done bool, key string) []byte {
	var b bytes.Buffer
	for range 3 {
		b.WriteString("event: speech.audio.delta\ndata: {\"type\":\"speech.audio.delta\",\"" + key + "\":\"" + b64(make([]byte, 480)) + "\",\"response_format\":\"pcm\"}\n\n")
	}
	if done {
		b.WriteString("event: speech.audio.done\ndata: {\"type\":\"speech.audio.done\",\"usage\":{\"input_tokens\":119,\"output_tokens\":77,\"total_tokens\":196,\"input_token_details\":{\"text_tokens\":18,\"audio_tokens\":101}}}\n\n")
	}
	return b.Bytes()
}

func TestSpeechSSEEveryByteBoundary(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"audio", "delta"} {
		everySplit(t, Speech, replay{header: sseHeader, pieces: [][]byte{speechEvents(true, key)}}, Request{Audio: pcm24k}, func(split int, r *record.Record) {
			if !r.OK() || r.Audio.Frames != 720 || len(r.AudioChunks) != 3 || r.Usage.Completion != 77 || r.Usage.Prompt != 119 {
				t.Fatalf("%s split %d: %+v %+v %+v", key, split, r.Err, r.Audio, r.Usage)
			}
		})
	}
}

// vLLM-Omni's WAV over SSE: the first delta is a header (sizes unknown) with samples, the
// later ones samples alone in its format.
func TestSpeechSSEWAVStream(t *testing.T) {
	t.Parallel()
	head := wavBytes(16000, 100, 0xFFFFFFFF)
	var b strings.Builder
	for _, p := range [][]byte{head, make([]byte, 320), make([]byte, 320)} {
		b.WriteString("data: {\"type\":\"speech.audio.delta\",\"audio\":\"" + b64(p) + "\"}\n\n")
	}
	b.WriteString("data: {\"type\":\"speech.audio.done\"}\n\n")
	r := do(t, Speech, replay{header: sseHeader, pieces: [][]byte{[]byte(b.String())}}, Request{Audio: chunk.AudioSpec{Format: "wav"}})
	if !r.OK() || r.Audio.Frames != 420 || r.Audio.SampleRate != 16000 || len(r.AudioChunks) != 3 {
		t.Fatalf("err %+v, audio %+v, %d chunks", r.Err, r.Audio, len(r.AudioChunks))
	}
}

func TestSpeechSSEFailures(t *testing.T) {
	t.Parallel()
	r := do(t, Speech, replay{header: sseHeader, pieces: [][]byte{speechEvents(false, "audio")}}, Request{Audio: pcm24k})
	if r.OK() || r.Err.Kind != record.KindTruncated {
		t.Fatalf("no done: %+v", r.Err)
	}
	stream := append(speechEvents(false, "audio"), "event: speech.audio.error\ndata: {\"type\":\"speech.audio.error\",\"error\":{\"message\":\"talker crashed\",\"type\":\"InternalServerError\",\"param\":null,\"code\":500}}\n\n"...)
	r = do(t, Speech, replay{header: sseHeader, pieces: [][]byte{stream}}, Request{Audio: pcm24k})
	if r.OK() || r.Err.Kind != record.KindStreamError || !strings.Contains(r.Err.Message, "talker crashed") {
		t.Fatalf("error event: %+v", r.Err)
	}
}

// speech.audio.error fails the request whatever holds its message: an error object, an
// error string, a top-level message, or nothing.
func TestSpeechSSEErrorEventFailsInEveryShape(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ event, want string }{
		{`{"type":"speech.audio.error","error":{"message":"talker crashed"}}`, "talker crashed"},
		{`{"type":"speech.audio.error","error":"talker crashed"}`, "talker crashed"},
		{`{"type":"speech.audio.error","message":"talker crashed"}`, "talker crashed"},
		{`{"error":null,"message":"talker crashed"}`, "talker crashed"}, // the type only in the event name
		{`{"type":"speech.audio.error"}`, "without a message"},
	} {
		stream := append(speechEvents(false, "audio"), "event: speech.audio.error\ndata: "+tc.event+"\n\n"...)
		stream = append(stream, speechEvents(true, "audio")...) // what follows an error is not read
		r := do(t, Speech, replay{header: sseHeader, pieces: [][]byte{stream}}, Request{Audio: pcm24k})
		if r.OK() || r.Err.Kind != record.KindStreamError || !strings.Contains(r.Err.Message, tc.want) || r.Audio.Frames != 720 {
			t.Errorf("%s: err %+v, %d frames", tc.event, r.Err, r.Audio.Frames)
		}
	}
}

// A 200 that is not audio is never counted as samples: an error body is the error it
// carries, HTML or text is malformed.
func TestSpeechTwoHundredThatIsNotAudio(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ct, body, kind, msg string
	}{
		{"application/json", `{"object":"error","message":"voice not found","code":400}`, record.KindStreamError, "speech: a 200 carrying an error: voice not found (code 400)"},
		{"application/json", `{"error":{"message":"overloaded","type":"ServiceUnavailable"}}`, record.KindStreamError, "ServiceUnavailable: overloaded"},
		{"text/html; charset=utf-8", "<html><body>502 Bad Gateway</body></html>", record.KindMalformed, "Content-Type text/html; charset=utf-8 is not audio: <html><body>502 Bad Gateway"},
	} {
		r := do(t, Speech, replay{header: map[string]string{"Content-Type": tc.ct}, pieces: [][]byte{[]byte(tc.body)}}, Request{Audio: pcm24k})
		if r.OK() || r.Err.Kind != tc.kind || !strings.Contains(r.Err.Message, tc.msg) || r.Audio.Frames != 0 {
			t.Errorf("%s %s: err %+v, %d frames; want %s containing %q", tc.ct, tc.body, r.Err, r.Audio.Frames, tc.kind, tc.msg)
		}
	}
}

// Speech SSE with return_stage_metrics (vllm-project/vllm-omni #4694): the stage metrics,
// the profile and the stream edges are read from whichever event carries them, a
// delta, an event of a type omnik does not know, or the done.
func TestSpeechSSEStageMetrics(t *testing.T) {
	t.Parallel()
	stages := `"stage_metrics":{"0":{"stage_id":0,"stage_name":"talker","output_unit_type":"stream","stage_gen_time_ms":900}}`
	edges := `"stream_edges":{"0->1:0":{"producer_first_nonempty_emit_ms":60,"consumer_first_accept_ms":75,` +
		`"clock_domains":{"producer_first_nonempty_emit":"orchestrator","consumer_first_accept":"orchestrator"}}}`
	stream := append(speechEvents(false, "audio"),
		"event: speech.audio.metrics\ndata: {\"type\":\"speech.audio.metrics\",\"metrics\":{"+stages+"}}\n\n"+
			"event: speech.audio.done\ndata: {\"type\":\"speech.audio.done\",\"usage\":{\"input_tokens\":18,\"output_tokens\":77,\"total_tokens\":95,\"peak_memory_mb\":2048},"+
			"\"metrics\":{\"stage_metrics\":{\"1\":{\"stage_id\":1,\"stage_name\":\"code2wav\",\"output_unit_type\":\"audio\",\"stage_gen_time_ms\":1000}},"+
			"\"stage_durations\":{\"queue_wait_ms\":4,\"bad\":\"x\"},"+edges+"}}\n\n"...)
	r := do(t, Speech, replay{header: sseHeader, pieces: [][]byte{stream}}, Request{Audio: pcm24k})
	if !r.OK() || len(r.Stages) != 2 || r.Stages["1"].Name != "code2wav" || r.Usage.Completion != 77 {
		t.Fatalf("err %+v, stages %+v, usage %+v", r.Err, r.Stages, r.Usage)
	}
	if r.Images.PeakMemoryMB != 2048 || !reflect.DeepEqual(r.Images.StageDurations, chunk.Durations{{Key: "queue_wait_ms", Value: 4}}) {
		t.Errorf("profile %+v", r.Images)
	}
	if v, ok := record.EdgeHandoffMS(r.Edges["0->1:0"]); !ok || v != 15 {
		t.Errorf("hand-off %v %v of %+v", v, ok, r.Edges)
	}
}
