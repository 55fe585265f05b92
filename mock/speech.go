package mock

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

type speechRequest struct {
	Model          string          `json:"model"`
	Input          string          `json:"input"`
	Voice          json.RawMessage `json:"voice"`
	ResponseFormat string          `json:"response_format"`
	Speed          *float64        `json:"speed"`
	Stream         bool            `json:"stream"`
	StreamFormat   string          `json:"stream_format"`
	Seed           *int64          `json:"seed"`
	// ReturnStageMetrics puts the stage metrics on speech.audio.done (SSE only: a raw
	// stream has nowhere to carry them).
	ReturnStageMetrics json.RawMessage `json:"return_stage_metrics"`
}

// speechJob is one validated /v1/audio/speech request.
type speechJob struct {
	req    speechRequest
	p      *Profile
	format string // wav or pcm
	mode   string // "audio" (raw stream), "sse" or "" (one body)
}

func (s *Server) handleSpeech(w http.ResponseWriter, r *http.Request) {
	var req speechRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeHTTPError(w, http.StatusBadRequest, "JSON decode error: "+err.Error())
		return
	}
	job, code, msg := s.newSpeechJob(req)
	if code != 0 {
		if code == http.StatusNotFound {
			modelNotFound(w, req.Model)
		} else {
			writeError(w, code, msg, "")
		}
		return
	}
	fault, done := s.requestFault(w, r)
	if done {
		return
	}
	pl, g := s.speechPipeline(job.p, req.Input, req.Voice, req.Seed)
	defer pl.done(errAborted)
	switch job.mode {
	case "audio":
		s.speechRaw(r.Context(), w, job, pl, g, fault)
	case "sse":
		s.speechSSE(r.Context(), w, job, pl, g, fault)
	default:
		s.speechBody(w, r, job, pl, g, fault)
	}
}

// newSpeechJob validates like vLLM-Omni's speech route; a non-zero code is
// the rejection to send.
func (s *Server) newSpeechJob(req speechRequest) (*speechJob, int, string) {
	p, ok := s.profileFor(req.Model, OutputAudio)
	if !ok {
		return nil, http.StatusNotFound, ""
	}
	if p.has(OutputAudio) < 0 {
		return nil, http.StatusBadRequest, fmt.Sprintf("Model %s does not produce audio", p.Model)
	}
	if strings.TrimSpace(req.Input) == "" {
		return nil, http.StatusBadRequest, "Input text cannot be empty"
	}
	job := &speechJob{req: req, p: p, format: "wav"}
	switch f := req.ResponseFormat; f {
	case "", "wav":
	case "pcm":
		job.format = "pcm"
	case "flac", "mp3", "opus":
		return nil, http.StatusBadRequest, fmt.Sprintf("response_format '%s' is accepted by vLLM-Omni but the simulator encodes only wav and pcm", f)
	default:
		return nil, http.StatusBadRequest, fmt.Sprintf("Invalid response_format '%s'. Supported: wav, pcm, flac, mp3, opus", f)
	}
	switch {
	case req.StreamFormat == "audio":
		job.mode = "audio"
	case req.StreamFormat == "sse" || (req.StreamFormat == "" && req.Stream):
		job.mode = "sse"
	case req.StreamFormat != "":
		return nil, http.StatusBadRequest, fmt.Sprintf("Invalid stream_format '%s'. Supported: audio, sse", req.StreamFormat)
	}
	if job.mode != "" && req.Speed != nil && *req.Speed != 1.0 {
		return nil, http.StatusBadRequest, "Streaming speech does not support speed adjustment; use speed 1.0"
	}
	return job, 0, ""
}

// speechPipeline plans the stages up to audio, scaled by the input length.
func (s *Server) speechPipeline(p *Profile, input string, voice json.RawMessage, seedField *int64) (*pipeline, *generator) {
	ai := p.has(OutputAudio)
	stages := p.Stages[:ai+1]
	visible := make([]bool, len(stages))
	visible[ai] = true
	scale := min(max(float64(len([]rune(input)))/float64(p.ReferenceInputChars), 0.2), 20)
	seedPart := ""
	if seedField != nil {
		seedPart = strconv.FormatInt(*seedField, 10)
	}
	rng, seed := s.requestRNG("speech", p.Model, input, string(voice), seedPart)
	pl := s.newPipeline(pipelineInput{profile: p, stages: stages, visible: visible, units: stageUnits(stages, scale, 0),
		tokensIn: estimateTokens(input), finish: "stop", rng: rng})
	return pl, &generator{seed: seed}
}

// codecTokens is the speech "output tokens": the talker's codec tokens.
func codecTokens(pl *pipeline) int {
	for i, st := range pl.stages {
		if st.Output == OutputStream {
			return sum(pl.plans[i].units)
		}
	}
	return 0
}

func speechContentType(format string) string {
	if format == "pcm" {
		return "audio/pcm"
	}
	return "audio/wav"
}

// speechRaw streams PCM as it is decoded; a wav stream starts with the
// placeholder header whose size fields are 0xFFFFFFFF.
func (s *Server) speechRaw(ctx context.Context, w http.ResponseWriter, job *speechJob, pl *pipeline, g *generator, fault *Fault) {
	w.Header().Set("Content-Type", speechContentType(job.format))
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	mid := midStream{f: fault}
	err := pl.run(ctx, func(st step, last bool) error {
		stage := pl.stages[st.stage]
		b := g.tone(stage).next(stage.AudioSecondsPerChunk)
		if st.index == 0 && job.format == "wav" {
			b = append(wavHeader(stage.SampleRate, 0xFFFFFFFF), b...)
		}
		switch mid.next(last) {
		case FaultStall:
			if err := sleepCtx(ctx, durationOf(fault)); err != nil {
				return err
			}
		case FaultReset:
			resetConn(w)
			return errAborted
		case FaultErrorEvent:
			// A raw stream has no error event: the server aborts the body,
			// so the client sees it end without the final chunk.
			pl.done(errEngineFailed)
			panic(http.ErrAbortHandler)
		case FaultMalformed:
			b = truncateAudio(b)
		}
		if truncatesAt(fault, st.index, len(pl.plans[st.stage].outputs)) {
			b = truncateAudio(b)
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
		return rc.Flush()
	})
	pl.done(err)
}

func speechUsage(pl *pipeline) map[string]any {
	in, out := pl.tokensIn, codecTokens(pl)
	return map[string]any{"input_tokens": in, "output_tokens": out, "total_tokens": in + out,
		"input_token_details": map[string]int{"text_tokens": in, "audio_tokens": 0}}
}

// speechSSE writes speech.audio.delta events and a speech.audio.done with
// usage, each preceded by its `event:` line; no [DONE].
func (s *Server) speechSSE(ctx context.Context, w http.ResponseWriter, job *speechJob, pl *pipeline, g *generator, fault *Fault) {
	out := startSSE(w, fault, func(s *sse) error {
		return s.raw("speech.audio.error", mustJSON(map[string]any{"type": "speech.audio.error",
			"error": newAPIError(500, "InternalServerError", "simulated engine failure mid-stream", "")}))
	})
	err := pl.run(ctx, func(st step, last bool) error {
		stage := pl.stages[st.stage]
		b := g.tone(stage).next(stage.AudioSecondsPerChunk)
		if st.index == 0 && job.format == "wav" {
			b = append(wavHeader(stage.SampleRate, 0xFFFFFFFF), b...)
		}
		if truncatesAt(fault, st.index, len(pl.plans[st.stage].outputs)) {
			b = truncateAudio(b)
		}
		return out.send(ctx, "speech.audio.delta", map[string]any{"type": "speech.audio.delta",
			"audio": base64.StdEncoding.EncodeToString(b), "response_format": job.format}, last)
	})
	pl.done(err)
	if err != nil {
		return
	}
	done := map[string]any{"type": "speech.audio.done", "usage": speechUsage(pl)}
	if truthy(job.req.ReturnStageMetrics) {
		done["metrics"] = pl.allMetrics(true)
	}
	_ = out.send(ctx, "speech.audio.done", done, false)
}

// speechBody answers non-streaming speech: one file, usage in headers.
func (s *Server) speechBody(w http.ResponseWriter, r *http.Request, job *speechJob, pl *pipeline, g *generator, fault *Fault) {
	var pcm []byte
	rate := 24000
	if pl.run(r.Context(), func(st step, _ bool) error {
		stage := pl.stages[st.stage]
		rate = stage.SampleRate
		pcm = append(pcm, g.tone(stage).next(stage.AudioSecondsPerChunk)...)
		return nil
	}) != nil {
		return
	}
	body := pcm
	if job.format == "wav" {
		body = wavFile(rate, pcm)
	}
	if fault != nil {
		if bodyFault(w, r, pl, fault) != nil {
			return
		}
		if fault.Kind == FaultMalformed || fault.Kind == FaultTruncatedWAV {
			body = truncateAudio(body)
		}
	}
	pl.done(nil)
	in, out := pl.tokensIn, codecTokens(pl)
	h := w.Header()
	h.Set("Content-Type", speechContentType(job.format))
	h.Set("x-vllm-omni-input-tokens", strconv.Itoa(in))
	h.Set("x-vllm-omni-output-tokens", strconv.Itoa(out))
	h.Set("x-vllm-omni-total-tokens", strconv.Itoa(in+out))
	h.Set("x-vllm-omni-input-text-tokens", strconv.Itoa(in))
	h.Set("x-vllm-omni-input-audio-tokens", "0")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}
