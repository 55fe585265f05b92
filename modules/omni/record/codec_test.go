package record

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
)

// full is a record with every field set the way readers set them.
func full() *Record {
	start := time.Date(2026, 12, 1, 9, 43, 24, 123456789, time.UTC)
	return &Record{
		Endpoint: EndpointAudioStream, RequestID: "chatcmpl-1", Status: 200, Scenario: "chat",
		Tags: map[string]string{"scenario": "renamed by a tag", "endpoint": "x"}, Metadata: map[string]string{"trace": "t1"},
		Start: start, Offset: 3*time.Hour + 7, IntendedStart: start.Add(-1500 * time.Microsecond), End: 2*time.Second + 1,
		Sent: 250*time.Microsecond + 3, Connect: 180 * time.Microsecond,
		TextChunks:  []TextChunk{{At: 80 * ms, Bytes: 5, Tokens: 1}, {At: 85*ms + 3, Bytes: 2, Tokens: -1}},
		TextSent:    []time.Duration{1, 999_999_999},
		Utterances:  []Utterance{{Index: 0, Text: "Hi.", Start: 5 * ms, Ready: ms, FirstAudio: 6 * ms, Done: 9 * ms, Frames: 10, Seconds: 0.5}, {Start: 10 * ms}},
		AudioChunks: []AudioChunk{{At: 123456789, Bytes: 9600, Frames: 4800}},
		ImageTimes:  []time.Duration{400 * ms},
		Usage:       Usage{Prompt: 12, Completion: 5, Total: 17, Estimated: true},
		Audio:       Audio{Format: "pcm", SampleRate: 24000, Channels: 1, FrameBytes: 2, Frames: 4800, Bytes: 9600, Seconds: 0.2, Mixed: true},
		Images:      Images{Count: 1, Width: 8, Height: 4, Pixels: 32, StageDurations: chunk.Durations{{Key: "dit_gen_ms", Value: 300}, {Key: "Pipeline.diffuse", Value: 1.5}}, PeakMemoryMB: 12.5},
		Stages: map[string]chunk.Stage{"1": {ID: 1, Name: "talker", OutputUnitType: "stream", FinalOutputType: "latent", FinishReason: "stop",
			Values: map[string]float64{"stage_id": 1, "stage_gen_time_ms": 16326.3, "serving_time_to_first_output_ms": 0},
			Lists:  map[string][]float64{"inter_output_latencies_ms": {11.5, 12.1}}}},
		Edges: map[string]chunk.Edge{"0->1:0": {Values: map[string]float64{"producer_first_nonempty_emit_ms": 12.5, "consumer_first_accept_ms": 14},
			Clocks: map[string]string{"producer_first_nonempty_emit": "orchestrator"}}},
		BytesSent: 120, BytesReceived: 4096,
		Realtime: &Turn{Session: "sess_1", Index: 2, Lane: RealtimeOpenAI, Duplex: true, Speech: 1.5, BargeIn: true, Outcome: TurnCancelled, Last: true, Completed: 3, Planned: 4},
	}
}

// What MarshalJSON writes, Decode reads back: every field but the payloads, to the
// nanosecond (the monotonic clock reading aside).
func TestRecordRoundTrip(t *testing.T) {
	t.Parallel()
	failed := full()
	failed.Err, failed.Status = &Error{Kind: KindStall, Message: "no event for 1m0s"}, 0
	bare := &Record{Endpoint: EndpointChat, Status: 200, Start: time.Unix(0, 5).UTC()}
	for name, in := range map[string]*Record{"full": full(), "failed": failed, "bare": bare} {
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Decode(b)
		if err != nil {
			t.Fatalf("%s: Decode: %v\n%s", name, err, b)
		}
		if !out.Start.Equal(in.Start) || !out.IntendedStart.Equal(in.IntendedStart) {
			t.Errorf("%s: start %v intended %v, want %v %v", name, out.Start, out.IntendedStart, in.Start, in.IntendedStart)
		}
		out.Start, out.IntendedStart = in.Start, in.IntendedStart
		if !reflect.DeepEqual(out, in) {
			t.Errorf("%s: round trip changed the record:\n in  %+v\n out %+v\n json %s", name, in, out, b)
		}
	}
}

// Payloads never reach a record file; keys are snake_case with "_ms" offsets.
func TestRecordJSONShape(t *testing.T) {
	t.Parallel()
	r := full()
	r.Text, r.Audio.Samples, r.Images.Data = "secret text", []byte("PCMPCM"), [][]byte{[]byte("PNGDATA")}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"schema":"` + Schema + `"`, `"offset_ms":10800000.000007`, `"start_lag_ms":1.5`, `"e2el_ms":2000.000001`,
		`"text_chunks":[{"at_ms":80,"bytes":5,"tokens":1}`, `"stages":{"1":{`, `"stage_name":"talker"`, `"image_ms":[400]`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("no %s in %s", want, b)
		}
	}
	for _, payload := range []string{"secret text", "PCMPCM", "PNGDATA", "UENN"} {
		if strings.Contains(string(b), payload) {
			t.Errorf("the payload %q is in the record: %s", payload, b)
		}
	}
}

func TestDecodeRefusesWhatItCannotUse(t *testing.T) {
	t.Parallel()
	good, _ := json.Marshal(full())
	with := func(key, value string) string {
		var m map[string]json.RawMessage
		_ = json.Unmarshal(good, &m)
		if value == "" {
			delete(m, key)
		} else {
			m[key] = json.RawMessage(value)
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	tests := []struct {
		name, data string
		field      string // the FieldError's; "" for a schema error
		schema     error
	}{
		{"missing start", with("start", ""), "start", nil},
		{"missing e2el", with("e2el_ms", ""), "e2el_ms", nil},
		{"missing endpoint", with("endpoint", ""), "endpoint", nil},
		{"missing schema", with("schema", ""), "schema", nil},
		{"not an omnik schema", with("schema", `"vegeta/v1"`), "schema", nil},
		{"an older major", with("schema", `"omnik.record/v1"`), "", ErrOlderSchema},
		{"a newer major", with("schema", `"omnik.record/v3"`), "", ErrNewerSchema},
		{"a chunk offset of the wrong type", with("text_chunks", `[{"at_ms":"soon"}]`), "text_chunks.at_ms", nil},
		{"ok and error disagree", with("ok", "false"), "error", nil},
		{"an offset beyond any run", with("offset_ms", "-1e300"), "offset_ms", nil},
		{"an endless request", with("e2el_ms", "1e12"), "e2el_ms", nil},
		{"a negative token count", with("text_chunks", `[{"at_ms":1,"bytes":1,"tokens":-7}]`), "text_chunks", nil},
		{"a negative turn", with("realtime", `{"turn":-1}`), "realtime", nil},
		{"not an object", `[1,2]`, "(record)", nil},
		{"not JSON", `{"schema":`, "(record)", nil},
	}
	for _, tc := range tests {
		_, err := Decode([]byte(tc.data))
		var fe *FieldError
		switch {
		case tc.schema != nil && !errors.Is(err, tc.schema):
			t.Errorf("%s: %v, want %v", tc.name, err, tc.schema)
		case tc.schema == nil && (!errors.As(err, &fe) || fe.Field != tc.field):
			t.Errorf("%s: %v, want a FieldError on %q", tc.name, err, tc.field)
		}
	}
	// A newer minor version and unknown keys are read: they only add.
	if _, err := Decode([]byte(with("schema", `"omnik.record/v2.7"`))); err != nil {
		t.Errorf("a newer minor version: %v", err)
	}
	if _, err := Decode([]byte(with("from_the_future", `{"x":[1]}`))); err != nil {
		t.Errorf("an unknown key: %v", err)
	}
}

// A v2.0 file named an interruption "canceled"; it still reads as one, not as a failure.
func TestDecodeReadsAV20InterruptionAsInterrupted(t *testing.T) {
	t.Parallel()
	r := full()
	r.Err = &Error{Kind: KindInterrupted, Message: "context canceled"}
	b, _ := json.Marshal(r)
	old := strings.Replace(strings.Replace(string(b), `"interrupted"`, `"canceled"`, 1), Schema, "omnik.record/v2", 1)
	got, err := Decode([]byte(old))
	if err != nil {
		t.Fatal(err)
	}
	if !got.Interrupted() || got.Failed() || got.OK() {
		t.Errorf("decoded %+v: want interrupted, not failed", got.Err)
	}
}

// Decode never panics and whatever it accepts encodes again, on any input.
func FuzzDecode(f *testing.F) {
	good, _ := json.Marshal(full())
	f.Add(good)
	f.Add([]byte(`{"schema":"omnik.record/v2","endpoint":"chat","start":"2026-01-01T00:00:00Z","e2el_ms":1,"ok":true}`))
	f.Add([]byte(`{"schema":"omnik.record/v2","endpoint":"chat","start":"2026-01-01T00:00:00Z","e2el_ms":1e300,"ok":true,"text_chunks":[{"at_ms":-1e300,"tokens":-5}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Decode(data)
		if err != nil {
			return
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatalf("a decoded record does not encode: %v", err)
		}
		// The per-request metrics read any decoded record.
		for _, m := range Measures {
			m.Each(r, func(float64) {})
		}
	})
}
