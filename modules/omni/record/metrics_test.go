package record

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
	"github.com/omnik-dev/omnik/modules/omni/wav"
)

const ms = time.Millisecond

var t0 = time.Unix(1_760_000_000, 0)

// text builds a record from text chunks given as (ms, running completion tokens or -1).
func text(n int, chunks ...[2]int) *Record {
	r := &Record{Endpoint: EndpointChat, Start: t0}
	for _, c := range chunks {
		r.TextChunks = append(r.TextChunks, TextChunk{At: time.Duration(c[0]) * ms, Bytes: 16, Tokens: int32(c[1])})
	}
	r.Usage.Completion = n
	return r
}

// However many chunks claim many tokens, a request gets at most MaxITLEntries entries,
// and every gap is still counted.
func TestITLEntriesAreBounded(t *testing.T) {
	t.Parallel()
	r := &Record{}
	for i := range MaxITLEntries/16 + 10 {
		r.TextChunks = append(r.TextChunks, TextChunk{At: time.Duration(i) * ms, Bytes: 16, Tokens: int32(16 * (i + 1))})
	}
	itl := ITL(r)
	var sum time.Duration
	for _, d := range itl {
		sum += d
	}
	if len(itl) > MaxITLEntries || sum != r.TextChunks[len(r.TextChunks)-1].At-r.TextChunks[0].At {
		t.Errorf("%d entries summing to %v; want at most %d summing to the text span", len(itl), sum, MaxITLEntries)
	}
}

func TestTextMetrics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		r    *Record
		ttft time.Duration // -1: none
		itl  []time.Duration
		tpot time.Duration // -1: none
	}{
		{"per chunk without usage", text(3, [2]int{100, -1}, [2]int{150, -1}, [2]int{230, -1}),
			100 * ms, []time.Duration{50 * ms, 80 * ms}, 65 * ms},
		{"usage on some chunks only is not continuous", text(3, [2]int{100, 1}, [2]int{150, -1}, [2]int{230, 3}),
			100 * ms, []time.Duration{50 * ms, 80 * ms}, 65 * ms},
		// 3 tokens at 100 ms, 2 more at 160, 1 more at 190: Σ = 90 ms over n−1 = 5 entries.
		{"token weighted", text(6, [2]int{100, 3}, [2]int{160, 5}, [2]int{190, 6}),
			100 * ms, []time.Duration{0, 0, 30 * ms, 30 * ms, 30 * ms}, 18 * ms},
		{"count that did not grow keeps its gap", text(2, [2]int{100, 2}, [2]int{150, 2}),
			100 * ms, []time.Duration{0, 50 * ms}, 25 * ms},
		{"single one-token chunk", text(1, [2]int{100, 1}), 100 * ms, nil, -1},
		{"single multi-token chunk", text(4, [2]int{100, 4}), 100 * ms, []time.Duration{0, 0, 0}, 0},
		{"single chunk, n from final usage", text(5, [2]int{100, -1}), 100 * ms, []time.Duration{}, -1},
		{"no text", text(0), -1, nil, -1},
		// A count that went down: the gap is one entry, nothing is lost, nothing panics.
		{"count that went down", text(7, [2]int{100, 7}, [2]int{150, 3}),
			100 * ms, []time.Duration{0, 0, 0, 0, 0, 0, 50 * ms}, 50 * ms / 7},
		// A chunk of 16 bytes is credited 16 tokens at most, however many the server claims.
		{"claims bounded by the bytes received", text(2_000_000_000, [2]int{100, 2_000_000_000}, [2]int{132, 2_000_000_000}),
			100 * ms, append(make([]time.Duration, 15), 32*ms), 2 * ms},
	}
	for _, tc := range tests {
		got, ok := TTFT(tc.r)
		if (tc.ttft < 0) == ok || (ok && got != tc.ttft) {
			t.Errorf("%s: ttft %v %v, want %v", tc.name, got, ok, tc.ttft)
		}
		if itl := ITL(tc.r); !reflect.DeepEqual(itl, tc.itl) && len(itl)+len(tc.itl) > 0 {
			t.Errorf("%s: itl %v, want %v", tc.name, itl, tc.itl)
		}
		got, ok = TPOT(tc.r)
		if (tc.tpot < 0) == ok || (ok && got != tc.tpot) {
			t.Errorf("%s: tpot %v %v, want %v", tc.name, got, ok, tc.tpot)
		}
	}
}

func TestTTFCTakesTheFirstModality(t *testing.T) {
	t.Parallel()
	r := text(1, [2]int{100, 1})
	r.AudioChunks = []AudioChunk{{At: 80 * ms, Bytes: 2}}
	r.ImageTimes = []time.Duration{90 * ms}
	if d, ok := TTFC(r); !ok || d != 80*ms {
		t.Fatalf("ttfc %v %v", d, ok)
	}
	if _, ok := TTFC(&Record{}); ok {
		t.Fatal("ttfc without chunks")
	}
}

func TestAudioMetrics(t *testing.T) {
	t.Parallel()
	r := &Record{Endpoint: EndpointChat, End: 1200 * ms,
		Audio:       Audio{Seconds: 3, SampleRate: 24000, FrameBytes: 2},
		AudioChunks: []AudioChunk{{At: 300 * ms, Bytes: 48000}, {At: 900 * ms, Bytes: 96000}}}
	if d, ok := AudioTTFP(r); !ok || d != 300*ms {
		t.Errorf("ttfp %v", d)
	}
	if v, ok := AudioRTF(r); !ok || math.Abs(v-0.3) > 1e-12 {
		t.Errorf("chat rtf %v, want 0.9 s / 3 s", v)
	}
	if _, ok := AudioUnderrun(r); ok {
		t.Error("chat audio has no continuity measurement")
	}
	r.Endpoint = EndpointSpeech
	if v, ok := AudioRTF(r); !ok || math.Abs(v-0.4) > 1e-12 {
		t.Errorf("speech rtf %v, want 1.2 s / 3 s", v)
	}
	if _, ok := AudioRTF(&Record{}); ok {
		t.Error("rtf without audio")
	}
}

func TestAudioUnderrun(t *testing.T) {
	t.Parallel()
	// 24 kHz mono s16 = 48 000 B/s. Chunks: 0.1 s at 100 ms, 0.1 s at 150 ms, 0.2 s at
	// 400 ms, at 420 ms. Deficits: 0.05−0.1, 0.30−0.20, 0.32−0.40 → underrun 0.1 s.
	r := &Record{Endpoint: EndpointSpeech, Audio: Audio{SampleRate: 24000, FrameBytes: 2}, AudioChunks: []AudioChunk{
		{At: 100 * ms, Bytes: 4800}, {At: 150 * ms, Bytes: 4800}, {At: 400 * ms, Bytes: 9600}, {At: 420 * ms, Bytes: 10}}}
	u, ok := AudioUnderrun(r)
	if !ok || math.Abs(u-0.1) > 1e-9 {
		t.Fatalf("underrun %v %v, want 0.1", u, ok)
	}
	r.AudioChunks = r.AudioChunks[:1]
	if u, ok := AudioUnderrun(r); !ok || u != 0 {
		t.Fatalf("one chunk: %v %v", u, ok)
	}
	if _, ok := AudioUnderrun(&Record{Endpoint: EndpointChat, AudioChunks: r.AudioChunks}); ok {
		t.Fatal("chat audio has no continuity measurement")
	}
}

func TestImageMetrics(t *testing.T) {
	t.Parallel()
	dit := chunk.Stage{ID: 1, Name: "dit", OutputUnitType: "image", FinalOutputType: "image",
		Values: map[string]float64{"stage_gen_time_ms": 2500, "output_unit_count": 2, "denoise_step_latency_ms": 50}}
	ar := chunk.Stage{ID: 0, Name: "AR", OutputUnitType: "text", FinalOutputType: "text",
		Values: map[string]float64{"stage_gen_time_ms": 900}}
	r := &Record{Images: Images{Count: 1, StageDurations: chunk.Durations{{Key: "stage_1_gen_ms", Value: 7}, {Key: "total_gen_ms", Value: 9}}},
		Stages: map[string]chunk.Stage{"0": ar, "1": dit}}
	if n := ImageCount(r); n != 2 {
		t.Errorf("count %d, want Σ output_unit_count 2", n)
	}
	if v, ok := ImageGenerationMS(r); !ok || v != 2500 {
		t.Errorf("generation %v, want the image stage's 2500", v)
	}
	if v, ok := DenoiseStepMS(r); !ok || v != 50 {
		t.Errorf("denoise %v", v)
	}
	r.Stages = nil
	if v, ok := ImageGenerationMS(r); !ok || v != 9 {
		t.Errorf("generation %v, want the largest *_gen_ms 9", v)
	}
	if _, ok := DenoiseStepMS(r); ok {
		t.Error("denoise without stages")
	}
	r.Stages = map[string]chunk.Stage{"1": {OutputUnitType: "video", FinalOutputType: "image", Values: map[string]float64{"stage_gen_time_ms": 5}}}
	if v, _ := ImageGenerationMS(r); v != 9 {
		t.Errorf("generation %v: a video stage is not an image stage", v)
	}
}

func TestE2ELFromIntended(t *testing.T) {
	t.Parallel()
	r := &Record{Start: t0, End: 500 * ms}
	if E2ELFromIntended(r) != 500*ms {
		t.Fatal("without an intended start")
	}
	r.IntendedStart = t0.Add(-20 * ms)
	if E2ELFromIntended(r) != 520*ms || E2EL(r) != 500*ms {
		t.Fatal("with 20 ms of lag")
	}
}

func TestBuilderChatStream(t *testing.T) {
	t.Parallel()
	b := NewBuilder(EndpointChat, t0)
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * ms) }
	b.OnTextChunk(at(50), nil, &chunk.Usage{PromptTokens: 812}) // role chunk
	b.OnTextChunk(at(100), []byte("Hel"), &chunk.Usage{PromptTokens: 812, CompletionTokens: 2})
	b.OnAudioChunk(at(120), "wav", chunk.AudioPiece{})             // empty talker segment
	b.OnUsage(chunk.Usage{PromptTokens: 812, CompletionTokens: 0}) // audio chunk usage
	b.OnAudioChunk(at(140), "wav", chunk.AudioPiece{Format: wav.PCM16(24000, 1), Bytes: 48000, Frames: 24000})
	b.OnTextChunk(at(160), []byte("lo"), &chunk.Usage{PromptTokens: 812, CompletionTokens: 3})
	b.OnAudioChunk(at(200), "wav", chunk.AudioPiece{Format: wav.PCM16(44100, 1), Bytes: 44100 * 2, Frames: 44100})
	b.OnStageMetrics(&chunk.Metrics{StageMetrics: map[string]chunk.Stage{"0": {Name: "thinker", Values: map[string]float64{"v": 1}}}})
	b.OnStageMetrics(&chunk.Metrics{NumTokensOut: 4, StageMetrics: map[string]chunk.Stage{
		"0": {Name: "thinker", Values: map[string]float64{"v": 2}}, "1": {Name: "talker"}}})
	b.OnStageMetrics(nil)
	b.OnUsage(chunk.Usage{PromptTokens: 812, CompletionTokens: 3, TotalTokens: 815})
	b.SetRequestID("chatcmpl-1")
	b.SetRequestID("chatcmpl-2")
	r := b.Finish(at(210))

	if r.Text != "Hello" || len(r.TextChunks) != 2 || r.TextChunks[0].Tokens != 2 || r.RequestID != "chatcmpl-1" {
		t.Fatalf("text: %+v", r)
	}
	if r.Usage != (Usage{Prompt: 812, Completion: 4, Total: 815}) {
		t.Fatalf("usage %+v: n = max(usage 3, num_tokens_out 4)", r.Usage)
	}
	if a := r.Audio; a.Frames != 68100 || a.Seconds != 2 || !a.Mixed || a.SampleRate != 24000 || len(r.AudioChunks) != 2 {
		t.Fatalf("audio %+v", a)
	}
	if d, _ := AudioTTFP(r); d != 140*ms {
		t.Fatalf("ttfp %v skips the empty segment", d)
	}
	if r.Stages["0"].Values["v"] != 2 || r.Stages["1"].Name != "talker" || !reflect.DeepEqual(r.StageIDs(), []string{"0", "1"}) {
		t.Fatalf("stages %+v", r.Stages)
	}
	if E2EL(r) != 210*ms || !r.OK() {
		t.Fatalf("e2el %v err %v", E2EL(r), r.Err)
	}
}

func TestBuilderEstimatesTokensWithoutUsage(t *testing.T) {
	t.Parallel()
	b := NewBuilder(EndpointChat, t0)
	b.OnTextChunk(t0.Add(ms), []byte("a"), nil)
	b.OnTextChunk(t0.Add(2*ms), []byte("b"), nil)
	if r := b.Finish(t0.Add(3 * ms)); r.Usage.Completion != 2 || !r.Usage.Estimated {
		t.Fatalf("usage %+v", r.Usage)
	}
	b = NewBuilder(EndpointSpeech, t0)
	b.OnAudioChunk(t0.Add(ms), "pcm", chunk.AudioPiece{Format: wav.PCM16(24000, 1), Bytes: 2, Frames: 1})
	if r := b.Finish(t0.Add(3 * ms)); r.Usage.Completion != 0 || r.Usage.Estimated {
		t.Fatalf("text-less request: n must be 0, got %+v", r.Usage)
	}
}

func TestBuilderKeepsFirstFailure(t *testing.T) {
	t.Parallel()
	b := NewBuilder(EndpointChat, t0)
	b.Fail(KindStreamError, "boom")
	b.Fail(KindTruncated, "no [DONE]")
	r := b.Finish(t0)
	if r.OK() || r.Err.Kind != KindStreamError || r.Err.Error() != "stream_error_event: boom" {
		t.Fatalf("err %+v", r.Err)
	}
}

func TestBuilderImages(t *testing.T) {
	t.Parallel()
	b := NewBuilder(EndpointImages, t0)
	b.OnImage(t0.Add(5*ms), 1024, 768, nil)
	b.OnImage(t0.Add(5*ms), 512, 512, []byte("png"))
	b.OnServerStats(chunk.Durations{{Key: "dit_gen_ms", Value: 3}}, 100)
	b.OnStageMetrics(&chunk.Metrics{StageDurations: chunk.Durations{{Key: "vae_gen_ms", Value: 4}, {Key: "dit_gen_ms", Value: 5}}, PeakMemoryMB: 50})
	r := b.Finish(t0.Add(6 * ms))
	im := r.Images
	if im.Count != 2 || im.Width != 1024 || im.Pixels != 1024*768+512*512 || len(im.Data) != 1 ||
		im.PeakMemoryMB != 100 || !reflect.DeepEqual(im.StageDurations, chunk.Durations{{Key: "dit_gen_ms", Value: 5}, {Key: "vae_gen_ms", Value: 4}}) {
		t.Fatalf("images %+v", im)
	}
	if d, _ := TTFC(r); d != 5*ms {
		t.Fatalf("ttfc %v", d)
	}
}

func TestUtterances(t *testing.T) {
	t.Parallel()
	b := NewBuilder(EndpointAudioStream, t0)
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * ms) }
	b.OnTextSent(at(1))
	b.OnAudioChunk(at(5), "pcm", chunk.AudioPiece{Format: wav.PCM16(24000, 1), Bytes: 2, Frames: 1}) // before any sentence
	b.OnUtteranceStart(at(100), 0, "Hello.")
	b.OnAudioChunk(at(130), "pcm", chunk.AudioPiece{Format: wav.PCM16(24000, 1), Bytes: 24000, Frames: 12000})
	b.OnAudioChunk(at(180), "pcm", chunk.AudioPiece{Format: wav.PCM16(24000, 1), Bytes: 24000, Frames: 12000})
	b.OnUtteranceDone(at(200))
	b.OnAudioChunk(at(210), "pcm", chunk.AudioPiece{Format: wav.PCM16(24000, 1), Bytes: 2, Frames: 1}) // after its done
	b.OnUtteranceStart(at(300), 1, "Bye.")
	r := b.Finish(at(400))
	u := r.Utterances[0]
	if ttfp, ok := u.TTFP(); !ok || ttfp != 30*ms {
		t.Errorf("ttfp %v, want 130−100 ms", ttfp)
	}
	// 100 ms of synthesis for 1 s of audio.
	if rtf, ok := u.RTF(); !ok || math.Abs(rtf-0.1) > 1e-12 || u.Frames != 24000 {
		t.Errorf("rtf %v frames %d", rtf, u.Frames)
	}
	if _, ok := r.Utterances[1].TTFP(); ok {
		t.Error("a sentence without audio has no ttfp")
	}
	if _, ok := r.Utterances[1].RTF(); ok {
		t.Error("a sentence without audio has no rtf")
	}
	if len(r.TextSent) != 1 || r.TextSent[0] != ms || r.Audio.Frames != 24002 {
		t.Errorf("sent %v frames %d", r.TextSent, r.Audio.Frames)
	}
}

// A speech or chat response's profile times its stages: its *_gen_ms is no image
// generation time without an image.
func TestProfileTimesAnImageOnlyWithOne(t *testing.T) {
	t.Parallel()
	r := &Record{Endpoint: EndpointSpeech, Images: Images{StageDurations: chunk.Durations{{Key: "talker_gen_ms", Value: 900}}}}
	if v, ok := ImageGenerationMS(r); ok {
		t.Errorf("image generation %v from a speech profile", v)
	}
	r.Images.Count = 1
	if v, ok := ImageGenerationMS(r); !ok || v != 900 {
		t.Errorf("image generation %v %v", v, ok)
	}
}
