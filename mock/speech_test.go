package mock

import (
	"encoding/hex"
	"encoding/json"
	"io"
	"strconv"
	"testing"
)

const speechURL = "/v1/audio/speech"

func TestSpeechRawStream(t *testing.T) {
	t.Parallel()
	_, u := startServer(t)
	tests := []struct {
		format, contentType string
		header              bool
	}{
		{"wav", "audio/wav", true},
		{"pcm", "audio/pcm", false},
	}
	for _, tc := range tests {
		t.Run(tc.format, func(t *testing.T) {
			t.Parallel()
			resp := post(t, u+speechURL, `{"input":"Hello there, this is a test of the speech stream.","stream":true,"stream_format":"audio","response_format":"`+tc.format+`"}`)
			b, err := io.ReadAll(resp.Body)
			if err != nil || resp.StatusCode != 200 || resp.Header.Get("Content-Type") != tc.contentType {
				t.Fatalf("%d %q %v", resp.StatusCode, resp.Header.Get("Content-Type"), err)
			}
			pcm := b
			if tc.header {
				// vLLM-Omni's _create_wav_header: PCM16 mono 24 kHz, both sizes 0xFFFFFFFF.
				want := "52494646ffffffff57415645666d74201000000001000100c05d000080bb00000200100064617461ffffffff"
				if got := hex.EncodeToString(b[:44]); got != want {
					t.Fatalf("placeholder header\n got %s\nwant %s", got, want)
				}
				pcm = b[44:]
			}
			if len(pcm) == 0 || len(pcm)%2 != 0 || len(pcm)%(2*9600) != 0 {
				t.Fatalf("pcm bytes = %d, want whole 0.4 s chunks", len(pcm))
			}
		})
	}
}

func TestSpeechSSEHasEventLinesAndUsage(t *testing.T) {
	t.Parallel()
	_, u := startServer(t)
	evs := mustSSE(t, post(t, u+speechURL, `{"input":"Hello there.","stream_format":"sse","response_format":"pcm"}`))
	last := evs[len(evs)-1]
	if last.event != "speech.audio.done" || last.data == "[DONE]" {
		t.Fatalf("last event = %+v", last)
	}
	frames := 0
	for _, e := range evs[:len(evs)-1] {
		var d struct {
			Type, Audio, ResponseFormat string
		}
		_ = json.Unmarshal([]byte(e.data), &d)
		if e.event != "speech.audio.delta" || d.Type != e.event {
			t.Fatalf("event %q type %q", e.event, d.Type)
		}
		frames += len(b64(t, d.Audio)) / 2
	}
	var done struct {
		Type  string `json:"type"`
		Usage struct {
			InputTokens, OutputTokens, TotalTokens int
		} `json:"usage"`
	}
	if err := json.Unmarshal([]byte(last.data), &done); err != nil || done.Type != "speech.audio.done" {
		t.Fatalf("done = %s", last.data)
	}
	if frames == 0 || frames%9600 != 0 {
		t.Fatalf("frames = %d", frames)
	}
}

func TestSpeechBodyCarriesUsageHeaders(t *testing.T) {
	t.Parallel()
	_, u := startServer(t)
	resp := post(t, u+speechURL, `{"model":"Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice","input":"One two three four.","voice":"vivian"}`)
	b, _ := io.ReadAll(resp.Body)
	if resp.Header.Get("Content-Type") != "audio/wav" {
		t.Fatalf("Content-Type %q", resp.Header.Get("Content-Type"))
	}
	w := parseWAV(t, b)
	if int(w.declared) != len(w.pcm) || len(w.pcm) == 0 {
		t.Fatalf("declared %d, got %d", w.declared, len(w.pcm))
	}
	in, _ := strconv.Atoi(resp.Header.Get("x-vllm-omni-input-tokens"))
	out, _ := strconv.Atoi(resp.Header.Get("x-vllm-omni-output-tokens"))
	total, _ := strconv.Atoi(resp.Header.Get("x-vllm-omni-total-tokens"))
	if in <= 0 || out <= 0 || total != in+out || resp.Header.Get("x-vllm-omni-input-text-tokens") == "" ||
		resp.Header.Get("x-vllm-omni-input-audio-tokens") != "0" {
		t.Fatalf("usage headers %v", resp.Header)
	}
}

func TestSpeechLengthFollowsTheInput(t *testing.T) {
	t.Parallel()
	_, u := startServer(t)
	size := func(input string) int {
		b, _ := io.ReadAll(post(t, u+speechURL, `{"input":"`+input+`","response_format":"pcm"}`).Body)
		return len(b)
	}
	short := size("Hi.")
	long := size("This sentence is a good deal longer than the reference input of the text to speech profile, so it speaks longer.")
	if long <= short {
		t.Fatalf("long input gave %d bytes, short %d", long, short)
	}
}
