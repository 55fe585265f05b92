package chunk

import (
	"strings"
	"testing"

	"github.com/omnik-dev/omnik/modules/omni/wav"
)

const benchText = `{"id":"chatcmpl-abc","object":"chat.completion.chunk","created":1760000000,"model":"Qwen/Qwen3-Omni-30B-A3B-Instruct","choices":[{"index":0,"delta":{"content":" hello"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":812,"total_tokens":815,"completion_tokens":3},"modality":"text","metrics":null}`

// BenchmarkDecodeTextChunk measures a typical vLLM-Omni text chunk with running usage.
func BenchmarkDecodeTextChunk(b *testing.B) {
	in := []byte(benchText)
	var c Chunk
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if err := Decode(in, &c); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeTextChunkEscaped is a text chunk whose content holds a newline, which
// JSON escapes.
func BenchmarkDecodeTextChunkEscaped(b *testing.B) {
	in := []byte(strings.Replace(benchText, `" hello"`, `" hello\n\n"`, 1))
	var c Chunk
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if err := Decode(in, &c); err != nil || string(c.Choices[0].Delta.Content.Text) != " hello\n\n" {
			b.Fatal(err, c.Choices)
		}
	}
}

// BenchmarkDecodeCompletion measures a non-streamed completion of about 200 tokens.
func BenchmarkDecodeCompletion(b *testing.B) {
	in := []byte(`{"id":"chatcmpl-abc","object":"chat.completion","created":1760000000,"model":"Qwen/Qwen3-Omni-30B-A3B-Instruct","choices":[{"index":0,"message":{"role":"assistant","content":"` +
		strings.Repeat("Hello there, ", 60) + `","tool_calls":[]},"logprobs":null,"finish_reason":"stop","stop_reason":null}],"usage":{"prompt_tokens":812,"total_tokens":1012,"completion_tokens":200,"prompt_tokens_details":null},"prompt_logprobs":null,"kv_transfer_params":null,"metrics":null}`)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		// A fresh Chunk, as each non-streamed request decodes into its own.
		var c Chunk
		if err := Decode(in, &c); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeAudioChunk measures a vLLM-Omni audio chunk carrying 0.5 s of 24 kHz
// WAV (32 KB of base64), decoded and counted without keeping the samples.
func BenchmarkDecodeAudioChunk(b *testing.B) {
	in := audioChunk()
	var c Chunk
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if err := Decode(in, &c); err != nil {
			b.Fatal(err)
		}
		p, err := DecodeAudio(c.Choices[0].Delta.Content.Text, AudioSpec{Format: "wav", Raw: wav.PCM16(24000, 1)})
		if err != nil || p.Frames != 12000 {
			b.Fatal(p, err)
		}
	}
}

// BenchmarkDecodeAudioChunkJSON is BenchmarkDecodeAudioChunk without the audio: the JSON alone.
func BenchmarkDecodeAudioChunkJSON(b *testing.B) {
	in := audioChunk()
	var c Chunk
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if err := Decode(in, &c); err != nil {
			b.Fatal(err)
		}
	}
}

// audioChunk is a vLLM-Omni audio chunk carrying 0.5 s of 24 kHz WAV (32 KB of base64).
func audioChunk() []byte {
	payload := string(b64(wavFile(24000, 1, make([]byte, 24000), 0, -1)))
	return []byte(`{"id":"chatcmpl-abc","object":"chat.completion.chunk","created":1760000000,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"` +
		payload + `"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":812,"total_tokens":812,"completion_tokens":0},"modality":"audio","metrics":null}`)
}

// BenchmarkDecodeStageMetrics measures a chunk carrying three finished stages.
func BenchmarkDecodeStageMetrics(b *testing.B) {
	st := `{"stage_id":0,"stage_name":"thinker","final_output_type":"text","stage_gen_time_ms":19579.9,"num_tokens_out":1500,"output_unit_type":"text","output_unit_count":1500,"serving_time_to_first_output_ms":689.5,"time_per_output_unit_ms":12.3,"inter_output_latencies_ms":[12.1,12.3,11.9],"vllm_ttft_ms":680.5,"vllm_tpot_ms":12.34,"vllm_itls_ms":[12.2,12.1]}`
	in := []byte(`{"id":"c","choices":[{"index":0,"delta":{"content":"x"}}],"modality":"text","metrics":{"stage_metrics":{"0":` + st + `,"1":` + st + `,"2":` + st + `},"stage_id":0,"num_tokens_in":2512,"num_tokens_out":1500}}`)
	var c Chunk
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if err := Decode(in, &c); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckBase64 is the cost of checking a 2 MB inline image (about a 1.5 MB PNG)
// on every image received.
func BenchmarkCheckBase64(b *testing.B) {
	src := []byte("data:image/png;base64," + strings.Repeat("QUJD", 512<<10))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if err := CheckBase64(src); err != nil {
			b.Fatal(err)
		}
	}
}
