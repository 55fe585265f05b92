package mock

// Errors here become response messages, worded as vLLM-Omni words them.
//lint:file-ignore ST1005 error texts are response messages sent verbatim

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	_ "image/gif"  // decode inputs of edits for size "auto"
	_ "image/jpeg" // decode inputs of edits for size "auto"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// imageJob is one validated generation or edit.
type imageJob struct {
	s       *Server
	p       *Profile
	model   string
	prompt  string
	n       int
	width   int
	height  int
	steps   int
	format  string // b64_json or file
	metrics bool
	stream  bool
}

type imageGenRequest struct {
	Prompt             string          `json:"prompt"`
	Model              string          `json:"model"`
	N                  *int            `json:"n"`
	Size               string          `json:"size"`
	ResponseFormat     string          `json:"response_format"`
	OutputFormat       string          `json:"output_format"`
	NumInferenceSteps  *int            `json:"num_inference_steps"`
	ReturnStageMetrics json.RawMessage `json:"return_stage_metrics"`
}

func (s *Server) handleImageGenerations(w http.ResponseWriter, r *http.Request) {
	var req imageGenRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeHTTPError(w, http.StatusBadRequest, "JSON decode error: "+err.Error())
		return
	}
	job, ok := s.newImageJob(w, req.Model, req.Prompt, req.N, req.NumInferenceSteps, req.ResponseFormat, req.OutputFormat)
	if !ok {
		return
	}
	var err error
	if job.width, job.height, err = parseSize(firstNonEmpty(req.Size, defaultImageSize)); err != nil {
		writeHTTPError(w, http.StatusBadRequest, err.Error())
		return
	}
	job.metrics = truthy(req.ReturnStageMetrics)
	s.serveImages(w, r, job)
}

// newImageJob checks the fields generations and edits share.
func (s *Server) newImageJob(w http.ResponseWriter, model, prompt string, n, steps *int, format, outFormat string) (*imageJob, bool) {
	p, ok := s.profileFor(model, OutputImage)
	switch {
	case !ok && model != "":
		writeHTTPError(w, http.StatusBadRequest, fmt.Sprintf("Model mismatch: requested '%s', served %s", model, strings.Join(s.Models(), ", ")))
		return nil, false
	case !ok || p.has(OutputImage) < 0:
		writeHTTPError(w, http.StatusServiceUnavailable, "Image generation is not available: the served model has no diffusion stage")
		return nil, false
	case strings.TrimSpace(prompt) == "":
		writeHTTPError(w, http.StatusBadRequest, "1 validation error for ImageGenerationRequest\nprompt\n  Field required")
		return nil, false
	}
	job := &imageJob{s: s, p: p, model: p.Model, prompt: prompt, n: 1, format: "b64_json"}
	if n != nil {
		if *n < 1 || *n > 10 {
			writeHTTPError(w, http.StatusBadRequest, "1 validation error for ImageGenerationRequest\nn\n  Input should be between 1 and 10")
			return nil, false
		}
		job.n = *n
	}
	if steps != nil {
		if *steps < 1 || *steps > 200 {
			writeHTTPError(w, http.StatusBadRequest, "1 validation error for ImageGenerationRequest\nnum_inference_steps\n  Input should be between 1 and 200")
			return nil, false
		}
		job.steps = *steps
	}
	switch format {
	case "", "b64_json":
	case "file":
		job.format = "file"
	case "url":
		writeHTTPError(w, http.StatusBadRequest, "response_format 'url' is not supported; use 'b64_json' or 'file'")
		return nil, false
	default:
		writeHTTPError(w, http.StatusBadRequest, fmt.Sprintf("Invalid response_format '%s'; use 'b64_json' or 'file'", format))
		return nil, false
	}
	if outFormat != "" && outFormat != "png" {
		writeHTTPError(w, http.StatusBadRequest, fmt.Sprintf("output_format '%s': the simulator encodes png only", outFormat))
		return nil, false
	}
	return job, true
}

func (s *Server) handleImageEdits(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseMultipartForm(64 << 20); err != nil {
		writeHTTPError(w, http.StatusBadRequest, "Invalid multipart form: "+err.Error())
		return
	}
	form := r.MultipartForm
	field := func(k string) string {
		if v := form.Value[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	intField := func(k string) (*int, error) {
		v := field(k)
		if v == "" {
			return nil, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, fmt.Errorf("1 validation error for ImageEditRequest\n%s\n  Input should be a valid integer", k)
		}
		return &n, nil
	}
	n, errN := intField("n")
	steps, errS := intField("num_inference_steps")
	if err := firstErr(errN, errS); err != nil {
		writeHTTPError(w, http.StatusBadRequest, err.Error())
		return
	}
	inputs := len(form.File["image"]) + len(form.File["image[]"]) + len(form.Value["url"]) + len(form.Value["url[]"])
	if inputs == 0 {
		writeHTTPError(w, http.StatusUnprocessableEntity, "Field 'image' or 'url' is required")
		return
	}
	if f := field("response_format"); f != "" && f != "b64_json" {
		writeHTTPError(w, http.StatusBadRequest, fmt.Sprintf("Invalid response_format '%s'; image edits return 'b64_json' only", f))
		return
	}
	job, ok := s.newImageJob(w, field("model"), field("prompt"), n, steps, "", field("output_format"))
	if !ok {
		return
	}
	job.metrics = formBool(field("return_stage_metrics"))
	size := firstNonEmpty(field("size"), "auto")
	var err error
	if size == "auto" {
		job.width, job.height, err = firstInputSize(r)
	} else {
		job.width, job.height, err = parseSize(size)
	}
	if err != nil {
		writeHTTPError(w, http.StatusBadRequest, err.Error())
		return
	}
	if job.stream = formBool(field("stream")); job.stream {
		ti := job.p.has(OutputText)
		if ti < 0 || ti > job.p.has(OutputImage) {
			writeHTTPError(w, http.StatusBadRequest, "Streaming image edits require a multi-stage AR+DiT pipeline")
			return
		}
	}
	s.serveImages(w, r, job)
}

// firstInputSize is the size of the first input image, for size "auto";
// an http URL (never fetched) counts as the default size.
func firstInputSize(r *http.Request) (int, int, error) {
	form := r.MultipartForm
	var data []byte
	if fs := append(form.File["image"], form.File["image[]"]...); len(fs) > 0 {
		f, err := fs[0].Open()
		if err != nil {
			return 0, 0, err
		}
		defer f.Close()
		data, _ = io.ReadAll(io.LimitReader(f, 64<<20))
	} else if urls := append(form.Value["url"], form.Value["url[]"]...); strings.HasPrefix(urls[0], "data:") {
		_, b64, _ := strings.Cut(urls[0], ",")
		data, _ = base64.StdEncoding.DecodeString(b64)
	} else {
		return parseSize(defaultImageSize)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return 0, 0, fmt.Errorf("Invalid image: %v", err)
	}
	return min(cfg.Width, maxImageSide), min(cfg.Height, maxImageSide), nil
}

// serveImages runs the pipeline up to the diffusion stage and answers with
// a JSON body, a PNG/zip file, or the image.edit.chunk stream.
func (s *Server) serveImages(w http.ResponseWriter, r *http.Request, job *imageJob) {
	fault, done := s.requestFault(w, r)
	if done {
		return
	}
	ii := job.p.has(OutputImage)
	stages := job.p.Stages[:ii+1]
	visible := make([]bool, len(stages))
	visible[ii] = true
	if job.stream {
		visible[job.p.has(OutputText)] = true
	}
	rng, seed := s.requestRNG("image", job.model, job.prompt)
	pl := s.newPipeline(pipelineInput{profile: job.p, stages: stages, visible: visible, units: stageUnits(stages, 1, 0),
		steps: job.steps, images: job.n, pixels: job.width * job.height,
		tokensIn: estimateTokens(job.prompt), finish: "stop", rng: rng})
	defer pl.done(errAborted)
	g := &generator{toks: words(rng, pl.tokensOut()), seed: seed, width: job.width, height: job.height}
	if job.stream {
		job.streamEdit(r.Context(), w, fault, pl, g)
		return
	}
	var pngs [][]byte
	if pl.run(r.Context(), func(step, bool) error {
		for i := range job.n {
			pngs = append(pngs, renderPNG(job.width, job.height, seed+uint64(i)))
		}
		return nil
	}) != nil {
		return
	}
	if job.format == "file" {
		pl.done(nil)
		writeImageFile(w, pngs)
		return
	}
	body := map[string]any{"created": time.Now().Unix(), "data": imageData(pngs),
		"output_format": nil, "size": nil, "stage_durations": stageDurations(pl), "peak_memory_mb": pl.peakMemoryMB()}
	if len(job.p.Stages) == 1 {
		// Multi-stage pipelines leave these null (wire-formats.md §3).
		body["output_format"], body["size"] = "png", fmt.Sprintf("%dx%d", job.width, job.height)
	}
	if job.metrics {
		body["metrics"] = pl.allMetrics(true)
	}
	writeFull(w, r, pl, fault, body)
}

func imageData(pngs [][]byte) []map[string]any {
	var out []map[string]any
	for _, b := range pngs {
		out = append(out, map[string]any{"b64_json": base64.StdEncoding.EncodeToString(b), "url": nil, "revised_prompt": nil})
	}
	return out
}

// stageDurations is the per-stage generation time object image responses carry, in
// stage order as a server's profiler records it (clients print its rows in that order).
func stageDurations(pl *pipeline) json.RawMessage {
	b := []byte{'{'}
	for _, m := range pl.finished {
		if m != nil {
			if len(b) > 1 {
				b = append(b, ',')
			}
			key, _ := json.Marshal(m.StageName + "_gen_ms")
			b = append(append(append(b, key...), ':'), strconv.FormatFloat(m.StageGenTimeMs, 'f', -1, 64)...)
		}
	}
	return append(b, '}')
}

// writeImageFile answers response_format "file": a PNG, or a zip when n > 1.
func writeImageFile(w http.ResponseWriter, pngs [][]byte) {
	if len(pngs) == 1 {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(pngs[0])
		return
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i, b := range pngs {
		f, _ := zw.Create(fmt.Sprintf("image_%d.png", i))
		_, _ = f.Write(b)
	}
	_ = zw.Close()
	w.Header().Set("Content-Type", "application/zip")
	_, _ = w.Write(buf.Bytes())
}

// streamEdit writes ar_delta events while the AR stage runs, then the image.
func (job *imageJob) streamEdit(ctx context.Context, w http.ResponseWriter, fault *Fault, pl *pipeline, g *generator) {
	created := time.Now().Unix()
	out := startSSE(w, fault, func(s *sse) error {
		e := map[string]any{"object": "error", "created": created, "model": job.model,
			"error": map[string]any{"message": "simulated engine failure mid-stream", "type": "server_error", "code": 500}}
		if err := s.raw("", mustJSON(e)); err != nil {
			return err
		}
		return s.done()
	})
	err := pl.run(ctx, func(st step, last bool) error {
		ev := map[string]any{"object": "image.edit.chunk", "created": created, "model": job.model,
			"metrics": pl.metrics(job.metrics, st.stage)}
		if pl.stages[st.stage].Output == OutputText {
			ev["type"], ev["index"] = "ar_delta", 0
			ev["delta"] = g.text(pl.plans[st.stage].units[st.index])
		} else {
			var pngs [][]byte
			for i := range job.n {
				pngs = append(pngs, renderPNG(job.width, job.height, g.seed+uint64(i)))
			}
			ev["type"], ev["data"] = "image", imageData(pngs)
			ev["output_format"], ev["size"] = "png", fmt.Sprintf("%dx%d", job.width, job.height)
		}
		return out.send(ctx, "", ev, last)
	})
	pl.done(err)
	if err == nil {
		_ = out.done()
	}
}
