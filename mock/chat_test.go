package mock

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestModelsListsEveryServedProfile(t *testing.T) {
	t.Parallel()
	_, u := startServer(t)
	resp, err := http.Get(u + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Object string `json:"object"`
		Data   []struct {
			ID     string `json:"id"`
			Object string `json:"object"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range body.Data {
		ids = append(ids, d.ID)
	}
	want := "Qwen/Qwen3-Omni-30B-A3B-Instruct,ByteDance-Seed/BAGEL-7B-MoT,tencent/HunyuanImage-3.0,Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice,Wan-AI/Wan2.2-T2V-A14B-Diffusers"
	if body.Object != "list" || strings.Join(ids, ",") != want {
		t.Fatalf("models = %s %v", body.Object, ids)
	}
}

func TestChatStreamFollowsVLLMOmniWireFormat(t *testing.T) {
	t.Parallel()
	_, u := startServer(t)
	chunks := parseChunks(t, mustSSE(t, post(t, u+chatURL, streamChat)))

	role := chunks[0]
	if r := role.Choices[0].Delta.Role; r == nil || *r != "assistant" || role.text() != "" || role.Modality != "text" {
		t.Fatalf("first chunk is not the role chunk: %+v", role.raw)
	}
	for _, k := range []string{"prompt_token_ids", "prompt_text"} {
		if string(role.raw[k]) != "null" {
			t.Errorf("role chunk %s = %s, want explicit null", k, role.raw[k])
		}
	}
	var text strings.Builder
	var frames, finishes, lastCompletion int
	for i, c := range chunks[1 : len(chunks)-1] {
		if c.Choices[0].FinishReason != nil {
			finishes++
			if i != len(chunks)-3 {
				t.Errorf("finish_reason on chunk %d, not on the last content chunk", i+1)
			}
		}
		switch c.Modality {
		case "text":
			text.WriteString(c.text())
			if c.Usage == nil || c.Usage.CompletionTokens != lastCompletion+1 {
				t.Fatalf("text chunk without running usage: %+v", c.Usage)
			}
			lastCompletion = c.Usage.CompletionTokens
		case "audio":
			w := parseWAV(t, b64(t, c.text()))
			if w.rate != 24000 || w.channels != 1 || int(w.declared) != len(w.pcm) {
				t.Fatalf("audio chunk WAV: rate %d ch %d declared %d got %d", w.rate, w.channels, w.declared, len(w.pcm))
			}
			frames += len(w.pcm) / 2
			if c.Usage == nil || c.Usage.CompletionTokens != 0 {
				t.Fatalf("audio chunk usage = %+v, want completion_tokens 0", c.Usage)
			}
		default:
			t.Fatalf("chunk without modality: %+v", c.raw)
		}
	}
	if finishes != 1 || chunks[len(chunks)-2].Modality != "audio" {
		t.Fatalf("want one finish_reason, on the last audio chunk; got %d", finishes)
	}
	final := chunks[len(chunks)-1]
	if len(final.Choices) != 0 || final.Usage == nil || final.Usage.CompletionTokens != 48 || final.Modality != "" {
		t.Fatalf("usage chunk = %+v", final.raw)
	}
	if text.Len() == 0 || frames != 5*9600 {
		t.Fatalf("text %q, frames %d", text.String(), frames)
	}
	var m metricsObject
	if err := json.Unmarshal(final.Metrics, &m); err != nil || len(m.StageMetrics) != 3 {
		t.Fatalf("usage chunk metrics = %s", final.Metrics)
	}
}

func TestChatStreamWithoutStageMetricsSendsNullMetrics(t *testing.T) {
	t.Parallel()
	_, u := startServer(t)
	body := strings.Replace(streamChat, `"return_stage_metrics":true`, `"max_tokens":4`, 1)
	chunks := parseChunks(t, mustSSE(t, post(t, u+chatURL, body)))
	for _, c := range chunks[:len(chunks)-1] {
		if string(c.raw["metrics"]) != "null" {
			t.Fatalf("metrics = %s, want null", c.raw["metrics"])
		}
	}
	if _, ok := chunks[len(chunks)-1].raw["metrics"]; ok {
		t.Fatal("usage chunk carries metrics though none were asked for")
	}
}

func TestChatStreamAudioFormats(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		opts   []Option
		format string
		// check fails on any chunk that is not audio (no role or text chunk may
		// appear with modalities ["audio"]) and returns the chunk's frames.
		check func(t *testing.T, c chunk) int
	}{
		{"pcm in delta.content", nil, "pcm", func(t *testing.T, c chunk) int {
			if c.Modality != "audio" {
				t.Fatalf("modality %q", c.Modality)
			}
			b := b64(t, c.text())
			if string(b[:4]) == "RIFF" || len(b)%2 != 0 {
				t.Fatalf("pcm chunk looks like a WAV or is odd-sized")
			}
			return len(b) / 2
		}},
		{"openai delta.audio", []Option{WithOpenAIAudio(true)}, "wav", func(t *testing.T, c chunk) int {
			if _, ok := c.raw["modality"]; ok || c.Choices[0].Delta.Audio == nil {
				t.Fatalf("OpenAI-style chunk = %v", c.raw)
			}
			return len(b64(t, c.Choices[0].Delta.Audio.Data)) / 2
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, u := startServer(t, tc.opts...)
			body := `{"messages":[{"role":"user","content":"hi"}],"stream":true,"modalities":["audio"],"audio":{"format":"` + tc.format + `"}}`
			chunks := parseChunks(t, mustSSE(t, post(t, u+chatURL, body)))
			frames := 0
			for _, c := range chunks {
				frames += tc.check(t, c)
			}
			if frames != 5*9600 {
				t.Fatalf("frames = %d", frames)
			}
		})
	}
}

func TestChatStreamMissingModalityGetsBareStopChunk(t *testing.T) {
	t.Parallel()
	_, u := startServer(t)
	body := `{"model":"ByteDance-Seed/BAGEL-7B-MoT","messages":[{"role":"user","content":"a cat"}],"stream":true,
	 "modalities":["text","image","audio"],"size":"64x48"}`
	chunks := parseChunks(t, mustSSE(t, post(t, u+chatURL, body)))
	img := chunks[len(chunks)-2]
	var parts []struct {
		Type     string `json:"type"`
		ImageURL struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	if err := json.Unmarshal(img.Choices[0].Delta.Content, &parts); err != nil || img.Modality != "image" || len(parts) != 1 {
		t.Fatalf("image chunk = %v", img.raw)
	}
	w, h := pngSize(t, b64(t, strings.TrimPrefix(parts[0].ImageURL.URL, "data:image/png;base64,")))
	if w != 64 || h != 48 {
		t.Fatalf("image %dx%d", w, h)
	}
	bare := chunks[len(chunks)-1]
	if _, ok := bare.raw["modality"]; ok || bare.Choices[0].FinishReason == nil || string(bare.raw["choices"]) != `[{"delta":{},"finish_reason":"stop","index":0}]` {
		t.Fatalf("bare chunk = %s", bare.raw["choices"])
	}
}

func TestChatNonStreamingHasOneIndexZeroChoicePerModality(t *testing.T) {
	t.Parallel()
	_, u := startServer(t)
	resp := post(t, u+chatURL, `{"messages":[{"role":"user","content":"hi"}],"max_tokens":12}`)
	var body struct {
		Object  string `json:"object"`
		Choices []struct {
			Index   int `json:"index"`
			Message struct {
				Content *string `json:"content"`
				Audio   *struct {
					ID         string `json:"id"`
					Data       string `json:"data"`
					Transcript string `json:"transcript"`
					ExpiresAt  int64  `json:"expires_at"`
				} `json:"audio"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage   usage           `json:"usage"`
		Metrics json.RawMessage `json:"metrics"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if body.Object != "chat.completion" || len(body.Choices) != 2 || body.Choices[0].Index != 0 || body.Choices[1].Index != 0 {
		t.Fatalf("choices = %+v", body.Choices)
	}
	if c := body.Choices[0]; c.Message.Content == nil || *c.Message.Content == "" || c.FinishReason != "length" {
		t.Fatalf("text choice = %+v", c)
	}
	a := body.Choices[1].Message
	if a.Content != nil || a.Audio == nil || !strings.HasPrefix(a.Audio.ID, "audio-") || a.Audio.ExpiresAt <= time.Now().Unix() {
		t.Fatalf("audio choice = %+v", a)
	}
	w := parseWAV(t, b64(t, a.Audio.Data))
	// max_tokens 12 of 48 cuts the speech to a quarter: one 0.4 s chunk.
	if int(w.declared) != len(w.pcm) || len(w.pcm) != 2*9600 {
		t.Fatalf("wav declared %d, pcm %d", w.declared, len(w.pcm))
	}
	if body.Usage.CompletionTokens != 12 || string(body.Metrics) != "null" {
		t.Fatalf("usage %+v metrics %s", body.Usage, body.Metrics)
	}
}

func TestRejectionsMatchRealServers(t *testing.T) {
	t.Parallel()
	_, u := startServer(t)
	_, ttsOnly := startServer(t, WithProfile("tts"))
	tests := []struct {
		name, url, body string
		code            int
		typ             string
		msg             string
	}{
		{"unknown model", u + chatURL, `{"model":"nope","messages":[{"role":"user","content":"x"}]}`,
			404, "NotFoundError", "The model `nope` does not exist."},
		{"stream_options without stream", u + chatURL, `{"messages":[{"role":"user","content":"x"}],"stream_options":{"include_usage":true}}`,
			400, "Bad Request", "Stream options can only be defined when `stream=True`."},
		{"no messages", u + chatURL, `{"model":"Qwen/Qwen3-Omni-30B-A3B-Instruct"}`, 400, "Bad Request", "messages"},
		{"unknown modality", u + chatURL, `{"messages":[{"role":"user","content":"x"}],"modalities":["smell"]}`,
			400, "BadRequestError", "Unsupported modality: smell"},
		{"unsupported audio format", u + chatURL, `{"messages":[{"role":"user","content":"x"}],"audio":{"format":"aac"}}`,
			400, "BadRequestError", "Unsupported audio format: aac"},
		{"malformed JSON", u + chatURL, `{"messages":`, 400, "Bad Request", "JSON"},
		{"image model mismatch", u + "/v1/images/generations", `{"model":"dall-e-3","prompt":"x"}`,
			400, "Bad Request", "Model mismatch"},
		{"bad size", u + "/v1/images/generations", `{"prompt":"x","size":"big"}`,
			400, "Bad Request", "Invalid size format: 'big'"},
		{"image n out of range", u + "/v1/images/generations", `{"prompt":"x","n":11}`, 400, "Bad Request", "n"},
		{"image url response_format", u + "/v1/images/generations", `{"prompt":"x","response_format":"url"}`,
			400, "Bad Request", "'url' is not supported"},
		{"no diffusion stage", ttsOnly + "/v1/images/generations", `{"prompt":"x"}`,
			503, "Service Unavailable", "no diffusion stage"},
		{"speech aac", u + "/v1/audio/speech", `{"input":"hello","response_format":"aac"}`,
			400, "BadRequestError", "Invalid response_format 'aac'"},
		{"speech unknown model", u + "/v1/audio/speech", `{"model":"nope","input":"hello"}`,
			404, "NotFoundError", "does not exist"},
		{"speech stream speed", u + "/v1/audio/speech", `{"input":"hello","stream_format":"audio","speed":1.5}`,
			400, "BadRequestError", "speed"},
		{"speech empty input", u + "/v1/audio/speech", `{"input":""}`, 400, "BadRequestError", "empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			resp := post(t, tc.url, tc.body)
			if resp.StatusCode != tc.code {
				b, _ := io.ReadAll(resp.Body)
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.code, b)
			}
			e := errorOf(t, resp.Body)
			if e.Code != tc.code || e.Type != tc.typ || !strings.Contains(e.Message, tc.msg) {
				t.Fatalf("error = %+v, want code %d type %q message containing %q", e, tc.code, tc.typ, tc.msg)
			}
		})
	}
}

func TestUnknownRouteAnswersLikeFastAPI(t *testing.T) {
	t.Parallel()
	_, u := startServer(t)
	resp := post(t, u+"/v1/nothing", `{}`)
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 404 || strings.TrimSpace(string(b)) != `{"detail":"Not Found"}` {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
}

func TestChatTextOnlyRunsOnlyTheThinker(t *testing.T) {
	t.Parallel()
	_, u := startServer(t)
	chunks := parseChunks(t, mustSSE(t, post(t, u+chatURL,
		`{"messages":[{"role":"user","content":"x"}],"stream":true,"modalities":["text"],"return_stage_metrics":true}`)))
	last := chunks[len(chunks)-1]
	if last.Modality != "text" || last.Choices[0].FinishReason == nil || *last.Choices[0].FinishReason != "stop" {
		t.Fatalf("last chunk = %v", last.raw)
	}
	var m metricsObject
	if err := json.Unmarshal(last.Metrics, &m); err != nil || len(m.StageMetrics) != 1 || m.StageMetrics["0"].StageName != "thinker" {
		t.Fatalf("metrics = %s", last.Metrics)
	}
	for _, c := range chunks {
		if c.Modality != "text" {
			t.Fatalf("non-text chunk %v", c.raw)
		}
	}
}

// TestChunkKeysComeInVLLMOmniOrder pins the byte layout of the role chunk:
// pydantic dumps fields in declaration order.
func TestChunkKeysComeInVLLMOmniOrder(t *testing.T) {
	t.Parallel()
	_, u := startServer(t)
	evs := mustSSE(t, post(t, u+chatURL, streamChat))
	dec := json.NewDecoder(strings.NewReader(evs[0].data))
	var keys []string
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				depth++
			} else {
				depth--
			}
		case string:
			if depth == 1 && dec.More() {
				keys = append(keys, v)
				var skip json.RawMessage
				_ = dec.Decode(&skip)
			}
		}
	}
	want := "id object created model choices usage prompt_token_ids prompt_text modality metrics"
	if got := strings.Join(keys, " "); got != want {
		t.Fatalf("keys = %s\nwant   %s", got, want)
	}
}
