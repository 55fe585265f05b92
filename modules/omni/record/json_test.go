package record

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

func TestRecordTypesMarshalSnakeCaseWithMillisecondOffsets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"text chunk", TextChunk{At: 12500 * time.Microsecond, Bytes: 5, Tokens: -1}, `{"at_ms":12.5,"bytes":5,"tokens":-1}`},
		{"audio chunk", AudioChunk{At: 40*ms + 100*time.Nanosecond, Bytes: 9600, Frames: 4800}, `{"at_ms":40.0001,"bytes":9600,"frames":4800}`},
		{"utterance", Utterance{Index: 1, Text: "Bye.", Start: 80 * ms, FirstAudio: 95 * ms, Frames: 2400, Seconds: 0.1},
			`{"index":1,"text":"Bye.","start_ms":80,"ready_ms":null,"first_audio_ms":95,"done_ms":null,"frames":2400,"seconds":0.1}`},
		{"offsets", Offsets{0, 1500 * time.Microsecond}, `[0,1.5]`},
		{"usage", Usage{Prompt: 12, Completion: 5, Total: 17}, `{"prompt_tokens":12,"completion_tokens":5,"total_tokens":17,"estimated":false}`},
		{"error", Error{Kind: KindStall, Message: "no event for 1m0s"}, `{"kind":"stall_timeout","message":"no event for 1m0s"}`},
		{"audio without samples", Audio{Format: "pcm", SampleRate: 24000, Channels: 1, FrameBytes: 2, Frames: 4800, Bytes: 9600, Seconds: 0.2, Samples: []byte{1, 2}},
			`{"format":"pcm","sample_rate":24000,"channels":1,"frame_bytes":2,"frames":4800,"bytes":9600,"seconds":0.2,"mixed":false}`},
		{"images without data", Images{Count: 1, Width: 8, Height: 4, Pixels: 32, Data: [][]byte{{1}}}, `{"count":1,"width":8,"height":4,"pixels":32}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, err := json.Marshal(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("got  %s\nwant %s", b, tc.want)
			}
		})
	}
}

func TestRecordTypesRoundTripThroughJSON(t *testing.T) {
	t.Parallel()
	type timeline struct {
		Text  []TextChunk  `json:"text_chunks"`
		Audio []AudioChunk `json:"audio_chunks"`
		Sent  Offsets      `json:"text_sent"`
		Utter []Utterance  `json:"utterances"`
	}
	in := timeline{
		Text:  []TextChunk{{At: 3*time.Hour + 7, Bytes: 1, Tokens: 2}},
		Audio: []AudioChunk{{At: 123456789, Bytes: 2, Frames: 1}},
		Sent:  Offsets{1, 999999999},
		Utter: []Utterance{{Index: 0, Text: "Hi.", Start: 5 * ms, Ready: 1 * ms, FirstAudio: 6 * ms, Done: 9 * ms, Frames: 10, Seconds: 0.5}, {Start: 10 * ms}},
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out timeline
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("round trip changed the timeline:\n in  %+v\n out %+v\n json %s", in, out, b)
	}
}
