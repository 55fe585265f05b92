package client

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// benchStream runs one stream of m chunks through the whole client pipeline (SSE reader,
// chunk decoder, audio counting, record builder) without the network, and reports the
// CPU per chunk.
func benchStream(b *testing.B, event string, m int) {
	stream := []byte(strings.Repeat(event, m) + "data: [DONE]\n\n")
	src := bytes.NewReader(stream)
	b.SetBytes(int64(len(event)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += m {
		src.Reset(stream)
		body := &closer{ReadCloser: io.NopCloser(src), cancel: func() {}}
		c := &call{req: &Request{Audio: chunk.AudioSpec{Format: "wav"}}, ctx: context.Background(),
			b: record.NewBuilder(record.EndpointChat, time.Now()), resp: &http.Response{Body: body}, body: body}
		if r := c.chatStream(); !r.OK() {
			b.Fatal(r.Err)
		}
	}
}

// BenchmarkPipelineTextChunk: a vLLM-Omni text chunk with running usage (~290 bytes).
func BenchmarkPipelineTextChunk(b *testing.B) {
	benchStream(b, `data: {"id":"chatcmpl-abc","object":"chat.completion.chunk","created":1760000000,"model":"Qwen/Qwen3-Omni-30B-A3B-Instruct","choices":[{"index":0,"delta":{"content":" hello"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":812,"total_tokens":815,"completion_tokens":3},"modality":"text","metrics":null}`+"\n\n", 1000)
}

// BenchmarkPipelineAudioChunk: a 0.5 s 24 kHz WAV chunk, 32 KB of base64.
func BenchmarkPipelineAudioChunk(b *testing.B) {
	benchStream(b, `data: {"id":"chatcmpl-abc","object":"chat.completion.chunk","created":1760000000,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"`+
		b64(wavBytes(24000, 12000, 24000))+`"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":812,"total_tokens":812,"completion_tokens":0},"modality":"audio","metrics":null}`+"\n\n", 100)
}

// BenchmarkPipelineStageChunk: a text chunk repeating three finished stages' metrics.
func BenchmarkPipelineStageChunk(b *testing.B) {
	st := `{"stage_id":0,"stage_name":"thinker","final_output_type":"text","stage_gen_time_ms":19579.9,"num_tokens_out":1500,"output_unit_type":"text","output_unit_count":1500,"serving_time_to_first_output_ms":689.5,"inter_output_latencies_ms":[` + strings.Repeat("12.1,", 200) + `12.3],"vllm_ttft_ms":680.5,"vllm_itls_ms":[12.2]}`
	benchStream(b, `data: {"id":"c","choices":[{"index":0,"delta":{"content":"x"}}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2},"modality":"text","metrics":{"stage_metrics":{"0":`+st+`,"1":`+st+`,"2":`+st+`},"stage_id":0,"num_tokens_in":2512,"num_tokens_out":1500}}`+"\n\n", 1000)
}
