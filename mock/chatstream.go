package mock

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
)

// chatChunk is vLLM-Omni's OmniChatCompletionStreamResponse; omitted fields
// are the ones it leaves unset (it dumps with exclude_unset).
type chatChunk struct {
	ID             string          `json:"id"`
	Object         string          `json:"object"`
	Created        int64           `json:"created"`
	Model          string          `json:"model"`
	Choices        []any           `json:"choices"`
	Usage          *usage          `json:"usage,omitempty"`
	PromptTokenIDs json.RawMessage `json:"prompt_token_ids,omitempty"`
	PromptText     json.RawMessage `json:"prompt_text,omitempty"`
	Modality       string          `json:"modality,omitempty"`
	Metrics        json.RawMessage `json:"metrics,omitempty"`
}

type streamChoice struct {
	Index        int             `json:"index"`
	Delta        any             `json:"delta"`
	Logprobs     json.RawMessage `json:"logprobs"`
	FinishReason *string         `json:"finish_reason"`
	StopReason   json.RawMessage `json:"stop_reason,omitempty"`
	TokenIDs     json.RawMessage `json:"token_ids,omitempty"`
}

var jsonNull = json.RawMessage("null")

func (j *chatJob) chunk(choice any, modality string, metrics json.RawMessage) chatChunk {
	c := chatChunk{ID: j.id, Object: "chat.completion.chunk", Created: j.created, Model: j.p.Model,
		Choices: []any{choice}, Modality: modality, Metrics: metrics}
	if j.s.cfg.OpenAIAudio {
		// An OpenAI server sends neither field; metrics only when asked for.
		c.Modality = ""
		if !j.metrics {
			c.Metrics = nil
		}
	}
	return c
}

// stream writes the SSE response: role chunk, interleaved outputs, a stop
// chunk per missing modality, the usage chunk and [DONE].
func (j *chatJob) stream(ctx context.Context, w http.ResponseWriter, fault *Fault) {
	out := startSSE(w, fault, func(s *sse) error {
		if err := s.raw("", mustJSON(errorBody{newAPIError(500, "InternalServerError", "simulated engine failure mid-stream", "")})); err != nil {
			return err
		}
		return s.done()
	})
	opts := j.req.StreamOptions
	continuous := opts != nil && opts.IncludeUsage && opts.ContinuousUsageStats
	completion := 0
	if ti, ok := j.shows(OutputText); ok {
		c := j.chunk(streamChoice{Delta: map[string]string{"role": "assistant", "content": ""}, Logprobs: jsonNull},
			OutputText, j.pl.metrics(j.metrics, ti))
		c.PromptTokenIDs, c.PromptText = jsonNull, jsonNull
		if continuous {
			c.Usage = newUsage(j.promptToks, 0)
		}
		if err := out.send(ctx, "", c, false); err != nil {
			j.pl.done(err) // a fault with after=0 fires here
			return
		}
	}
	var lastMetrics json.RawMessage
	g := j.generator()
	err := j.pl.run(ctx, func(st step, last bool) error {
		var finish *string
		if last {
			finish = &j.pl.finish
			if j.stages[st.stage].Output != OutputText {
				stop := "stop"
				finish = &stop
			}
		}
		lastMetrics = j.pl.metrics(j.metrics, st.stage)
		var c chatChunk
		switch out := j.stages[st.stage].Output; out {
		case OutputText:
			text := g.text(j.pl.plans[st.stage].units[st.index])
			completion += j.pl.plans[st.stage].units[st.index]
			c = j.chunk(streamChoice{Delta: map[string]string{"content": text}, Logprobs: jsonNull, FinishReason: finish},
				OutputText, lastMetrics)
			if continuous {
				c.Usage = newUsage(j.promptToks, completion)
			}
		case OutputAudio:
			n := len(j.pl.plans[st.stage].outputs)
			c = j.chunk(j.audioChoice(g.audio(j.stages[st.stage], fault, st.index, n), finish), OutputAudio, lastMetrics)
			// vLLM-Omni puts usage on every audio chunk, with no completion tokens.
			c.Usage = newUsage(j.promptToks, 0)
		case OutputImage:
			c = j.chunk(streamChoice{Delta: map[string]any{"role": "assistant", "content": []any{g.imagePart()}},
				Logprobs: jsonNull, FinishReason: finish}, OutputImage, lastMetrics)
		}
		return out.send(ctx, "", c, last)
	})
	// The engine is done with the last output; the rest is bookkeeping.
	j.pl.done(err)
	if err != nil {
		return
	}
	for range j.missing {
		stop := "stop"
		c := chatChunk{ID: j.id, Object: "chat.completion.chunk", Created: j.created, Model: j.p.Model,
			Choices: []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": stop}}}
		if err := out.send(ctx, "", c, false); err != nil {
			return
		}
	}
	if opts != nil && opts.IncludeUsage {
		c := chatChunk{ID: j.id, Object: "chat.completion.chunk", Created: j.created, Model: j.p.Model,
			Choices: []any{}, Usage: newUsage(j.promptToks, j.pl.tokensOut())}
		if j.metrics {
			c.Metrics = lastMetrics
		}
		if err := out.send(ctx, "", c, false); err != nil {
			return
		}
	}
	_ = out.done()
}

// audioChoice puts an audio payload where the configured server style does:
// vLLM-Omni's base64 file in delta.content, or OpenAI's delta.audio.
func (j *chatJob) audioChoice(payload []byte, finish *string) streamChoice {
	b64 := base64.StdEncoding.EncodeToString(payload)
	var delta any = map[string]string{"role": "assistant", "content": b64}
	if j.s.cfg.OpenAIAudio {
		delta = map[string]any{"audio": map[string]any{"id": "audio_" + j.id, "data": b64,
			"transcript": "", "expires_at": j.created + 86400}}
	}
	return streamChoice{Delta: delta, Logprobs: jsonNull, FinishReason: finish, StopReason: jsonNull, TokenIDs: jsonNull}
}
