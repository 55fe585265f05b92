package mock

import (
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
	plan       pipelineInput // what start admits
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	job, ok := s.newChatJob(w, r)
	if !ok {
		return
	}
	fault, done := s.requestFault(w, r)
	if done {
		return
	}
	// Admitted only now: a status fault answers before the engine sees the request.
	job.start()
	defer job.pl.done(errAborted)
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
	if last < 0 {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("None of the requested modalities %v is produced by %s (it produces %v)", want, p.Model, p.modalities()), "modalities")
		return nil, false
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
	job.plan = pipelineInput{profile: p, stages: job.stages, visible: job.visible, units: units,
		steps: firstPositive(req.NumInferenceSteps, req.ExtraBody.NumInferenceSteps), images: 1,
		pixels: job.width * job.height, tokensIn: toks, finish: finish, rng: rng}
	return job, true
}

// start admits the job to the engine and plans its output.
func (j *chatJob) start() {
	j.pl = j.s.newPipeline(j.plan)
	j.toks = words(j.plan.rng, j.pl.tokensOut())
}

// shows reports whether the client sees output kind, and from which stage.
func (j *chatJob) shows(output string) (int, bool) {
	for i, st := range j.stages {
		if st.Output == output && j.visible[i] {
			return i, true
		}
	}
	return -1, false
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
	choice := func(msg map[string]any, finish string) map[string]any {
		return map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": finish, "stop_reason": nil}
	}
	var choices []any
	_, hasText := j.shows(OutputText)
	if hasText {
		choices = append(choices, choice(map[string]any{"role": "assistant", "content": text.String()}, j.pl.finish))
	}
	if ai, ok := j.shows(OutputAudio); ok {
		data := pcm
		if j.format == "wav" {
			data = wavFile(j.stages[ai].SampleRate, pcm)
		}
		if truncatesAt(fault, 0, 1) {
			data = truncateAudio(data)
		}
		audio := map[string]any{"id": j.s.newID("audio-"), "data": base64.StdEncoding.EncodeToString(data),
			"expires_at": j.created + 86400, "transcript": ""}
		msg := map[string]any{"role": "assistant", "content": nil, "audio": audio}
		if j.s.cfg.OpenAIAudio && hasText {
			// OpenAI answers with one choice: the text is the audio's transcript.
			audio["transcript"] = text.String()
			choices = choices[:0]
		}
		choices = append(choices, choice(msg, "stop"))
	}
	if len(images) > 0 {
		choices = append(choices, choice(map[string]any{"role": "assistant", "content": images}, "stop"))
	}
	body := map[string]any{"id": j.id, "object": "chat.completion", "created": j.created, "model": j.p.Model,
		"choices": choices, "usage": newUsage(j.promptToks, j.pl.tokensOut()), "metrics": j.pl.allMetrics(j.metrics)}
	writeFull(w, r, j.pl, fault, body)
}
