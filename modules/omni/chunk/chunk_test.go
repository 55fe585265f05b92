package chunk

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

// Bodies as vLLM-Omni and OpenAI send them (wire-formats.md).
const (
	omniRole  = `{"id":"chatcmpl-abc","object":"chat.completion.chunk","created":1760000000,"model":"Qwen/Qwen3-Omni-30B-A3B-Instruct","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"modality":"text","prompt_token_ids":null,"prompt_text":null}`
	omniText  = `{"id":"chatcmpl-abc","object":"chat.completion.chunk","created":1760000000,"model":"m","choices":[{"index":0,"delta":{"content":" there"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":812,"total_tokens":815,"completion_tokens":3},"modality":"text","metrics":null}`
	omniAudio = `{"id":"chatcmpl-abc","object":"chat.completion.chunk","created":1760000000,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"UklGRiQAAABXQVZF"},"logprobs":null,"finish_reason":"stop","stop_reason":null,"token_ids":null}],"usage":{"prompt_tokens":812,"total_tokens":812,"completion_tokens":0},"modality":"audio","metrics":null}`
	omniImage = `{"id":"c","choices":[{"index":0,"delta":{"content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBO"},"stage_durations":{"dit_gen_ms":812.5},"peak_memory_mb":2048}]}}],"modality":"image"}`
	omniFinal = `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":812,"total_tokens":868,"completion_tokens":56}}`
	omniBare  = `{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`
	omniStats = `{"id":"c","choices":[{"index":0,"delta":{"content":"x"}}],"modality":"text","metrics":{"stage_metrics":{"0":{"stage_id":0,"stage_name":"thinker","final_output_type":"text","stage_gen_time_ms":19579.9,"num_tokens_out":1500,"output_unit_type":"text","output_unit_count":1500,"serving_time_to_first_output_ms":689.5,"inter_output_latencies_ms":[12.1,13],"vllm_itls_ms":[12.2],"batch_ids":["a"],"replica_id":null,"nested":{"x":1}}},"stage_id":0,"final_output_type":"text","num_tokens_in":2512,"num_tokens_out":1500}}`
	oaiAudio  = `{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"audio":{"id":"audio_1","data":"AAAA","transcript":"Hi","expires_at":1}},"finish_reason":null}],"usage":null}`
)

func decode(t *testing.T, s string) Chunk {
	t.Helper()
	var c Chunk
	if err := Decode([]byte(s), &c); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return c
}

func TestDecodeChatChunks(t *testing.T) {
	t.Parallel()
	c := decode(t, omniRole)
	if c.Modality != "text" || c.Choices[0].Delta.Role != "assistant" || !c.Choices[0].Delta.Content.Empty() || c.Usage != nil {
		t.Fatalf("role chunk: %+v", c)
	}
	c = decode(t, omniText)
	if string(c.Choices[0].Delta.Content.Text) != " there" || *c.Usage != (Usage{PromptTokens: 812, TotalTokens: 815, CompletionTokens: 3}) || c.Metrics != nil {
		t.Fatalf("text chunk: %+v", c)
	}
	c = decode(t, omniAudio)
	if c.Modality != "audio" || string(c.Choices[0].Delta.Content.Text) != "UklGRiQAAABXQVZF" || c.Choices[0].FinishReason != "stop" {
		t.Fatalf("audio chunk: %+v", c)
	}
	c = decode(t, omniImage)
	p := c.Choices[0].Delta.Content.Parts
	if len(p) != 1 || p[0].Type != "image_url" || string(p[0].ImageURL.URL) != "data:image/png;base64,iVBO" ||
		!reflect.DeepEqual(p[0].StageDurations, Durations{{"dit_gen_ms", 812.5}}) || p[0].PeakMemoryMB != 2048 {
		t.Fatalf("image chunk: %+v", c)
	}
	c = decode(t, omniFinal)
	if len(c.Choices) != 0 || c.Usage.CompletionTokens != 56 || c.Modality != "" {
		t.Fatalf("usage chunk: %+v", c)
	}
	c = decode(t, omniBare)
	if c.Choices[0].FinishReason != "stop" || !c.Choices[0].Delta.Content.Empty() {
		t.Fatalf("bare finish chunk: %+v", c)
	}
	c = decode(t, oaiAudio)
	a := c.Choices[0].Delta.Audio
	if a == nil || string(a.Data) != "AAAA" || string(a.Transcript) != "Hi" || a.ID != "audio_1" {
		t.Fatalf("openai audio chunk: %+v", c)
	}
}

func TestDecodeStageMetrics(t *testing.T) {
	t.Parallel()
	c := decode(t, omniStats)
	m := c.Metrics
	if m.NumTokensIn != 2512 || m.NumTokensOut != 1500 {
		t.Fatalf("metrics: %+v", m)
	}
	want := Stage{ID: 0, Name: "thinker", OutputUnitType: "text", FinalOutputType: "text",
		Values: map[string]float64{"stage_id": 0, "stage_gen_time_ms": 19579.9, "num_tokens_out": 1500,
			"output_unit_count": 1500, "serving_time_to_first_output_ms": 689.5},
		Lists: map[string][]float64{"inter_output_latencies_ms": {12.1, 13}, "vllm_itls_ms": {12.2}}}
	if got := m.StageMetrics["0"]; !reflect.DeepEqual(got, want) {
		t.Fatalf("stage 0 =\n%+v\nwant\n%+v", got, want)
	}
	c = decode(t, `{"metrics":{}}`)
	if c.Metrics == nil || c.Metrics.StageMetrics != nil {
		t.Fatalf("empty metrics: %+v", c.Metrics)
	}
}

func TestDecodeNonStreaming(t *testing.T) {
	t.Parallel()
	omni := `{"id":"chatcmpl-abc","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Hello there."},"finish_reason":"stop"},{"index":0,"message":{"role":"assistant","content":null,"audio":{"id":"audio-3f","data":"UklGRi","expires_at":1760086400,"transcript":""}},"finish_reason":"stop"}],"usage":{"prompt_tokens":812,"total_tokens":868,"completion_tokens":56},"metrics":null}`
	c := decode(t, omni)
	if len(c.Choices) != 2 || string(c.Choices[0].Message.Content.Text) != "Hello there." ||
		c.Choices[1].Message.Audio == nil || string(c.Choices[1].Message.Audio.Data) != "UklGRi" || c.Usage.TotalTokens != 868 {
		t.Fatalf("vllm-omni: %+v", c)
	}
	oai := `{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":null,"audio":{"id":"a","data":"AAAA","transcript":"Hi there"}},"finish_reason":"stop"}]}`
	c = decode(t, oai)
	if m := c.Choices[0].Message; m.Audio == nil || string(m.Audio.Transcript) != "Hi there" || !m.Content.Empty() {
		t.Fatalf("openai: %+v", c)
	}
}

func TestDecodeErrors(t *testing.T) {
	t.Parallel()
	stage := 1
	tests := []struct {
		name, body string
		want       Error
	}{
		{"vllm in-stream", `{"error":{"message":"boom","type":"InternalServerError","param":null,"code":500}}`, Error{Message: "boom", Type: "InternalServerError", Code: "500"}},
		{"openai", `{"error":{"message":"bad","type":"invalid_request_error","param":"model","code":"model_not_found"}}`, Error{Message: "bad", Type: "invalid_request_error", Param: "model", Code: "model_not_found"}},
		{"engine failure", `{"error":{"message":"x","type":"t","code":500,"request_id":"r1","error_stage_id":1}}`, Error{Message: "x", Type: "t", Code: "500", RequestID: "r1", ErrorStageID: &stage}},
		{"image edit", `{"object":"error","created":1,"model":"m","error":{"message":"oom","type":"server_error","code":500}}`, Error{Message: "oom", Type: "server_error", Code: "500"}},
		{"realtime string", `{"type":"error","error":"no such model","code":"x"}`, Error{Message: "no such model"}},
		{"speech", `{"type":"speech.audio.error","error":{"message":"m","type":"t","param":null,"code":400}}`, Error{Message: "m", Type: "t", Code: "400"}},
	}
	for _, tc := range tests {
		c := decode(t, tc.body)
		if c.Error == nil || !reflect.DeepEqual(*c.Error, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, c.Error, tc.want)
		}
	}
	if c := decode(t, `{"detail":"Field 'image' or 'url' is required"}`); c.Detail == nil || c.Detail.Message != "Field 'image' or 'url' is required" {
		t.Errorf("detail string: %+v", c.Detail)
	}
	if c := decode(t, `{"detail": [ {"loc":["body","n"], "msg":"too big"} ]}`); c.Detail == nil || c.Detail.Message != `[{"loc":["body","n"],"msg":"too big"}]` {
		t.Errorf("detail list: %+v", c.Detail)
	}
}

func TestDecodeSpeechAndImages(t *testing.T) {
	t.Parallel()
	c := decode(t, `{"type":"speech.audio.delta","audio":"AAAA","response_format":"pcm"}`)
	if c.Type != "speech.audio.delta" || string(c.Audio) != "AAAA" {
		t.Fatalf("speech delta: %+v", c)
	}
	c = decode(t, `{"type":"speech.audio.delta","delta":"BBBB"}`)
	if string(c.Delta) != "BBBB" || c.Audio != nil {
		t.Fatalf("early speech delta: %+v", c)
	}
	c = decode(t, `{"type":"speech.audio.done","usage":{"input_tokens":119,"output_tokens":77,"total_tokens":196,"input_token_details":{"text_tokens":18}}}`)
	if *c.Usage != (Usage{InputTokens: 119, OutputTokens: 77, TotalTokens: 196}) {
		t.Fatalf("speech done: %+v", c.Usage)
	}
	c = decode(t, `{"created":1760000000,"data":[{"b64_json":"iVBOR","url":null,"revised_prompt":null},{"url":"https://x/y.png"}],"output_format":"png","size":"1024x1024","stage_durations":{"stage_1_gen_ms":3.5},"peak_memory_mb":10}`)
	if len(c.Data) != 2 || string(c.Data[0].B64JSON) != "iVBOR" || c.Data[0].URL != nil || string(c.Data[1].URL) != "https://x/y.png" ||
		!reflect.DeepEqual(c.StageDurations, Durations{{"stage_1_gen_ms", 3.5}}) || c.PeakMemoryMB != 10 {
		t.Fatalf("images: %+v", c)
	}
	c = decode(t, `{"object":"image.edit.chunk","type":"ar_delta","delta":"<think>","index":0,"created":1,"model":"m","metrics":null}`)
	if c.Object != "image.edit.chunk" || c.Type != "ar_delta" || string(c.Delta) != "<think>" {
		t.Fatalf("ar_delta: %+v", c)
	}
	c = decode(t, `{"object":"image.edit.chunk","type":"image","data":[{"b64_json":"iVBOR"}],"output_format":"png","size":"1024x1024"}`)
	if c.Type != "image" || len(c.Data) != 1 {
		t.Fatalf("edit image: %+v", c)
	}
}

func TestDecodeUnescapesAndAliases(t *testing.T) {
	t.Parallel()
	in := []byte(`{"choices":[{"delta":{"content":"a\"b\nc\u00e9"}}]}`)
	var c Chunk
	if err := Decode(in, &c); err != nil || string(c.Choices[0].Delta.Content.Text) != "a\"b\nc\u00e9" {
		t.Fatalf("escaped: %q %v", c.Choices[0].Delta.Content.Text, err)
	}
	in = []byte(`{"choices":[{"delta":{"content":"plain"}}]}`)
	if err := Decode(in, &c); err != nil {
		t.Fatal(err)
	}
	in[bytes.Index(in, []byte("plain"))] = 'P' // the decoded string aliases the input
	if string(c.Choices[0].Delta.Content.Text) != "Plain" {
		t.Fatalf("not aliased: %q", c.Choices[0].Delta.Content.Text)
	}
}

func TestDecodeResetsBetweenChunks(t *testing.T) {
	t.Parallel()
	var c Chunk
	if err := Decode([]byte(omniStats), &c); err != nil {
		t.Fatal(err)
	}
	if err := Decode([]byte(omniBare), &c); err != nil {
		t.Fatal(err)
	}
	if c.Metrics != nil || c.Modality != "" || len(c.Choices) != 1 || !c.Choices[0].Delta.Content.Empty() {
		t.Fatalf("stale fields: %+v", c)
	}
}

func TestDecodeMalformed(t *testing.T) {
	t.Parallel()
	for _, s := range []string{`{"choices":[{"delta":`, `not json`, `{"choices":{}}`, `{"choices":[{"delta":{"content":{}}}]}`, `{"usage":{"prompt_tokens":"x"}}`, ``} {
		var c Chunk
		err := Decode([]byte(s), &c)
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("%q: err %v", s, err)
		}
	}
	var c Chunk
	err := Decode([]byte(`{"choices":[{"delta":{"content":"x"}}]} trailing`), &c)
	if err == nil || err.Error() != `chunk: malformed JSON at byte 41: invalid character 't' after top-level value` {
		t.Errorf("err = %v", err)
	}
}
