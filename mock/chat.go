package mock

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

type chatRequest struct {
	Model         string        `json:"model"`
	Messages      []chatMessage `json:"messages"`
	Stream        bool          `json:"stream"`
	StreamOptions *struct {
		IncludeUsage         bool `json:"include_usage"`
		ContinuousUsageStats bool `json:"continuous_usage_stats"`
	} `json:"stream_options"`
	MaxTokens  *int     `json:"max_tokens"`
	Modalities []string `json:"modalities"`
	Audio      *struct {
		Format string `json:"format"`
	} `json:"audio"`
	Seed               *int64          `json:"seed"`
	ReturnStageMetrics json.RawMessage `json:"return_stage_metrics"`
	imageKnobs
	ExtraBody imageKnobs `json:"extra_body"`
}

// imageKnobs are the diffusion settings a chat request may carry, at top
// level or in extra_body.
type imageKnobs struct {
	Size              string `json:"size"`
	NumInferenceSteps int    `json:"num_inference_steps"`
}

type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// prompt returns the request's text and an estimate of its prompt tokens,
// counting media parts at rough encoder sizes.
func (r *chatRequest) prompt() (string, int) {
	var text strings.Builder
	tokens := 0
	for _, m := range r.Messages {
		tokens += 4 // chat template around each message
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			text.WriteString(s + "\n")
			tokens += estimateTokens(s)
			continue
		}
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		_ = json.Unmarshal(m.Content, &parts)
		for _, p := range parts {
			switch p.Type {
			case "text":
				text.WriteString(p.Text + "\n")
				tokens += estimateTokens(p.Text)
			case "image_url":
				tokens += 256
			case "input_audio", "audio_url":
				tokens += 150
			case "video_url":
				tokens += 1024
			}
		}
	}
	return text.String(), tokens
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	TotalTokens      int `json:"total_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

func newUsage(prompt, completion int) *usage {
	return &usage{PromptTokens: prompt, TotalTokens: prompt + completion, CompletionTokens: completion}
}

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

// chatJob is one validated chat request and what it will generate.
type chatJob struct {
	s          *Server
	req        chatRequest
	p          *Profile
	id         string
	created    int64
	stages     []Stage
	visible    []bool
	missing    []string // requested modalities the pipeline cannot produce
	format     string   // audio format: wav or pcm
	promptToks int
	metrics    bool
	width      int
	height     int
	seed       uint64
	pl         *pipeline
	toks       []string
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	job, ok := s.newChatJob(w, r)
	if !ok {
		return
	}
	fault, err := s.pickFault(r)
	if err != nil {
		writeHTTPError(w, http.StatusBadRequest, err.Error())
		return
	}
	if preStream(w, r, fault) {
		return
	}
	if job.req.Stream {
		job.stream(r.Context(), w, fault)
		return
	}
	job.full(w, r, fault)
}

// newChatJob validates like vLLM-Omni does and answers the rejections.
func (s *Server) newChatJob(w http.ResponseWriter, r *http.Request) (*chatJob, bool) {
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeHTTPError(w, http.StatusBadRequest, "JSON decode error: "+err.Error())
		return nil, false
	}
	p, ok := s.profileFor(req.Model, "")
	switch {
	case !ok:
		modelNotFound(w, req.Model)
		return nil, false
	case len(req.Messages) == 0:
		writeHTTPError(w, http.StatusBadRequest, "1 validation error for ChatCompletionRequest\nmessages\n  Field required")
		return nil, false
	case req.StreamOptions != nil && !req.Stream:
		writeHTTPError(w, http.StatusBadRequest, "1 validation error for ChatCompletionRequest\n  Value error, Stream options can only be defined when `stream=True`.")
		return nil, false
	case req.MaxTokens != nil && *req.MaxTokens < 1:
		writeHTTPError(w, http.StatusBadRequest, "1 validation error for ChatCompletionRequest\nmax_tokens\n  Input should be greater than or equal to 1")
		return nil, false
	}
	job := &chatJob{s: s, req: req, p: p, id: s.newID("chatcmpl-"), created: time.Now().Unix(),
		format: "wav", metrics: truthy(req.ReturnStageMetrics)}
	if req.Audio != nil && req.Audio.Format != "" {
		switch f := req.Audio.Format; f {
		case "wav":
		case "pcm", "pcm16":
			job.format = "pcm"
		case "flac", "mp3", "opus":
			writeError(w, http.StatusBadRequest, fmt.Sprintf("Audio format %q is accepted by vLLM-Omni but the simulator encodes only wav and pcm.", f), "audio.format")
			return nil, false
		default:
			writeError(w, http.StatusBadRequest, fmt.Sprintf("Unsupported audio format: %s. Supported formats: wav, pcm, flac, mp3, opus.", f), "audio.format")
			return nil, false
		}
	}
	want := req.Modalities
	if len(want) == 0 {
		want = p.modalities()
	}
	for _, m := range want {
		if m != OutputText && m != OutputAudio && m != OutputImage {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("Unsupported modality: %s", m), "modalities")
			return nil, false
		}
		if p.has(m) < 0 {
			job.missing = append(job.missing, m)
		}
	}
	last := -1
	for i, st := range p.Stages {
		if contains(want, st.Output) {
			last = i
		}
	}
	job.stages = p.Stages[:last+1]
	for _, st := range job.stages {
		job.visible = append(job.visible, contains(want, st.Output))
	}
	size := firstNonEmpty(req.Size, req.ExtraBody.Size, defaultImageSize)
	var err error
	if job.width, job.height, err = parseSize(size); err != nil {
		writeHTTPError(w, http.StatusBadRequest, err.Error())
		return nil, false
	}
	prompt, toks := req.prompt()
	job.promptToks = toks
	seedPart := ""
	if req.Seed != nil {
		seedPart = strconv.FormatInt(*req.Seed, 10)
	}
	rng, seed := s.requestRNG("chat", p.Model, prompt, seedPart)
	job.seed = seed
	maxTokens := 0
	if req.MaxTokens != nil {
		maxTokens = *req.MaxTokens
	}
	units := stageUnits(job.stages, 1, maxTokens)
	finish := "stop"
	if ti := p.has(OutputText); ti >= 0 && ti < len(units) && maxTokens > 0 && units[ti] == maxTokens && p.Stages[ti].Units > maxTokens {
		finish = "length"
	}
	job.pl = s.newPipeline(pipelineInput{stages: job.stages, visible: job.visible, units: units,
		steps: firstPositive(req.NumInferenceSteps, req.ExtraBody.NumInferenceSteps), images: 1,
		pixels: job.width * job.height, tokensIn: toks, finish: finish, rng: rng})
	job.toks = words(rng, job.pl.tokensOut())
	return job, true
}

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
	textShown := len(j.visible) > 0 && j.visible[0] && j.stages[0].Output == OutputText
	completion := 0
	if textShown {
		c := j.chunk(streamChoice{Delta: map[string]string{"role": "assistant", "content": ""}, Logprobs: jsonNull},
			OutputText, j.pl.metrics(j.metrics, 0))
		c.PromptTokenIDs, c.PromptText = jsonNull, jsonNull
		if continuous {
			c.Usage = newUsage(j.promptToks, 0)
		}
		if err := out.send(ctx, "", c, false); err != nil {
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

// full answers a non-streaming chat: one index-0 choice per modality.
func (j *chatJob) full(w http.ResponseWriter, r *http.Request, fault *Fault) {
	g := j.generator()
	var text strings.Builder
	var pcm []byte
	var images []any
	err := j.pl.run(r.Context(), func(st step, _ bool) error {
		stage := j.stages[st.stage]
		switch stage.Output {
		case OutputText:
			text.WriteString(g.text(j.pl.plans[st.stage].units[st.index]))
		case OutputAudio:
			pcm = append(pcm, g.tone(stage).next(stage.AudioSecondsPerChunk)...)
		case OutputImage:
			images = append(images, g.imagePart())
		}
		return nil
	})
	if err != nil {
		return
	}
	choice := func(msg map[string]any) map[string]any {
		return map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": j.pl.finish, "stop_reason": nil}
	}
	var choices []any
	if len(j.visible) > 0 && j.visible[0] && j.stages[0].Output == OutputText {
		choices = append(choices, choice(map[string]any{"role": "assistant", "content": text.String()}))
	}
	if ai := j.p.has(OutputAudio); ai >= 0 && ai < len(j.visible) && j.visible[ai] {
		data := pcm
		if j.format == "wav" {
			data = wavFile(j.stages[ai].SampleRate, pcm)
		}
		if truncatesAt(fault, 0, 1) {
			data = truncateAudio(data)
		}
		choices = append(choices, choice(map[string]any{"role": "assistant", "content": nil, "audio": map[string]any{
			"id": j.s.newID("audio-"), "data": base64.StdEncoding.EncodeToString(data),
			"expires_at": j.created + 86400, "transcript": ""}}))
	}
	if len(images) > 0 {
		choices = append(choices, choice(map[string]any{"role": "assistant", "content": images}))
	}
	body := map[string]any{"id": j.id, "object": "chat.completion", "created": j.created, "model": j.p.Model,
		"choices": choices, "usage": newUsage(j.promptToks, j.pl.tokensOut()), "metrics": j.pl.allMetrics(j.metrics)}
	writeFull(w, r, fault, body)
}

// writeFull writes a non-streaming JSON body, acting out mid-stream faults
// the only way a single body can: an error status, a reset, a stall or a
// body cut inside its JSON.
func writeFull(w http.ResponseWriter, r *http.Request, fault *Fault, body any) {
	if fault != nil {
		switch fault.Kind {
		case FaultErrorEvent:
			writeError(w, http.StatusInternalServerError, "simulated engine failure", "")
			return
		case FaultReset:
			resetConn(w)
			return
		case FaultStall:
			if sleepCtx(r.Context(), durationOf(fault)) != nil {
				return
			}
		case FaultMalformed:
			b := mustJSON(body)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write(b[:len(b)/2])
			return
		}
	}
	writeJSON(w, http.StatusOK, body)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("mock: encoding %T: %v", v, err))
	}
	return b
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

func firstPositive(vals ...int) int {
	for _, v := range vals {
		if v > 0 {
			return v
		}
	}
	return 0
}
