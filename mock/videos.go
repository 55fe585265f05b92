package mock

// Errors here become response messages, worded as vLLM-Omni words them.
//lint:file-ignore ST1005 error texts are response messages sent verbatim

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Defaults of a video request that names neither: Wan2.2's 480p at 16 fps, about 2 s.
const (
	defaultVideoSize   = "832x480"
	defaultVideoFPS    = 16
	defaultVideoFrames = 33
	// maxVideoBytes bounds a clip's content, whatever frames and size ask for.
	maxVideoBytes = 16 << 20
	// maxVideoJobs bounds the jobs kept for polling: past it the oldest finished one goes,
	// so a soak does not grow the simulator.
	maxVideoJobs = 4096
)

// videoStore holds the async jobs of /v1/videos. Their pipelines run on goroutines that
// end with the server (close).
type videoStore struct {
	ctx    context.Context
	cancel context.CancelFunc

	mu    sync.Mutex
	jobs  map[string]*videoJob
	order []string // ids, oldest first
}

func newVideoStore() *videoStore {
	ctx, cancel := context.WithCancel(context.Background())
	return &videoStore{ctx: ctx, cancel: cancel, jobs: map[string]*videoJob{}}
}

func (vs *videoStore) close() { vs.cancel() }

func (vs *videoStore) add(j *videoJob) {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	vs.jobs[j.id] = j
	vs.order = append(vs.order, j.id)
	for i := 0; len(vs.jobs) > maxVideoJobs && i < len(vs.order); i++ {
		if old := vs.jobs[vs.order[i]]; old.finished() {
			delete(vs.jobs, old.id)
			vs.order = append(vs.order[:i], vs.order[i+1:]...)
			i--
		}
	}
}

func (vs *videoStore) get(id string) (*videoJob, bool) {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	j, ok := vs.jobs[id]
	return j, ok
}

// videoJob is one job: what was asked, and its state as the pipeline moves it.
type videoJob struct {
	id, model, prompt string
	width, height     int
	frames            int
	fps               int
	seconds           string // echoed as the request gave it, "4" by default as upstream
	metrics           bool
	created           int64
	pl                *pipeline
	fault             *Fault

	mu        sync.Mutex
	status    string
	failure   *apiError
	completed int64
	elapsed   time.Duration // accept to completion
	final     map[string]any
	gets      int // GETs of the job (polls and content), the After of its faults
	fired     bool
}

func (j *videoJob) finished() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.status == "completed" || j.status == "failed"
}

// handleVideoCreate is POST /v1/videos: multipart (vLLM-Omni), urlencoded or JSON.
func (s *Server) handleVideoCreate(w http.ResponseWriter, r *http.Request) {
	f, err := videoForm(r)
	if err != nil {
		writeHTTPError(w, http.StatusBadRequest, err.Error())
		return
	}
	model, prompt := f["model"], f["prompt"]
	p, ok := s.profileFor(model, OutputVideo)
	switch {
	case !ok && model != "":
		writeHTTPError(w, http.StatusBadRequest, fmt.Sprintf("Model mismatch: requested '%s', served %s", model, strings.Join(s.Models(), ", ")))
		return
	case !ok || p.has(OutputVideo) < 0:
		writeHTTPError(w, http.StatusServiceUnavailable, "No final video output stage found in video generation pipeline.")
		return
	case strings.TrimSpace(prompt) == "":
		writeHTTPError(w, http.StatusBadRequest, "1 validation error for VideoGenerationRequest\nprompt\n  Field required")
		return
	}
	j := &videoJob{model: p.Model, prompt: prompt, seconds: firstNonEmpty(f["seconds"], "4"), fps: defaultVideoFPS,
		metrics: truthy(json.RawMessage(f["return_stage_metrics"])), created: time.Now().Unix(), status: "queued"}
	steps, err := j.parse(f)
	if err != nil {
		writeHTTPError(w, http.StatusBadRequest, err.Error())
		return
	}
	if j.fault, err = s.pickFault(r); err != nil {
		writeHTTPError(w, http.StatusBadRequest, err.Error())
		return
	}
	// Slow headers delay the create; a status fault refuses it with after=0, else it
	// answers the after-th GET of the job (getFault).
	if f := j.fault; f != nil && (f.status() == 0 || f.After == 0) && preStream(w, r, f) {
		return
	}
	vi := p.has(OutputVideo)
	stages := p.Stages[:vi+1]
	visible := make([]bool, len(stages))
	visible[vi] = true
	rng, _ := s.requestRNG("video", j.model, prompt)
	j.id = s.newID("video_gen_")
	j.pl = s.newPipeline(pipelineInput{profile: p, stages: stages, visible: visible, units: stageUnits(stages, 1, 0),
		steps: steps, images: 1, pixels: j.width * j.height, tokensIn: estimateTokens(prompt), finish: "stop", rng: rng})
	s.videos.add(j)
	go j.run(s.videos.ctx)
	writeJSON(w, http.StatusOK, j.object())
}

// videoForm reads the create's fields as strings, whatever the body's encoding.
func videoForm(r *http.Request) (map[string]string, error) {
	out := map[string]string{}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			return nil, fmt.Errorf("JSON decode error: %v", err)
		}
		for k, v := range body {
			if s, ok := v.(string); ok {
				out[k] = s
			} else {
				out[k] = string(mustJSON(v))
			}
		}
		return out, nil
	}
	if err := r.ParseMultipartForm(64 << 20); err != nil && err != http.ErrNotMultipart {
		return nil, fmt.Errorf("Invalid multipart form: %v", err)
	}
	for k, v := range r.Form {
		out[k] = v[0]
	}
	return out, nil
}

// parse reads size, frames, fps and steps as vLLM-Omni's VideoGenerationRequest
// resolves them: size over width and height, num_frames over seconds·fps.
func (j *videoJob) parse(f map[string]string) (steps int, err error) {
	ints := map[string]int{}
	for _, k := range []string{"width", "height", "num_frames", "fps", "num_inference_steps"} {
		if v := f[k]; v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return 0, fmt.Errorf("1 validation error for VideoGenerationRequest\n%s\n  Input should be greater than or equal to 1", k)
			}
			ints[k] = n
		}
	}
	if ints["num_inference_steps"] > 200 {
		return 0, fmt.Errorf("1 validation error for VideoGenerationRequest\nnum_inference_steps\n  Input should be less than or equal to 200")
	}
	size := f["size"]
	if size == "" && ints["width"] > 0 && ints["height"] > 0 {
		size = fmt.Sprintf("%dx%d", ints["width"], ints["height"])
	}
	if j.width, j.height, err = parseSize(firstNonEmpty(size, defaultVideoSize)); err != nil {
		return 0, err
	}
	if ints["fps"] > 0 {
		j.fps = ints["fps"]
	}
	secs, err := strconv.Atoi(j.seconds)
	if err != nil || secs < 1 {
		return 0, fmt.Errorf("1 validation error for VideoGenerationRequest\nseconds\n  String should match pattern '^[1-9]\\d*$'")
	}
	switch {
	case ints["num_frames"] > 0:
		j.frames = ints["num_frames"]
	case f["seconds"] != "":
		j.frames = secs * j.fps
	default:
		j.frames = defaultVideoFrames
	}
	return ints["num_inference_steps"], nil
}

// run moves the job through its pipeline: queued until its first denoise step is due,
// in progress until the clip is done, then completed (or failed, or late, as its fault
// says).
func (j *videoJob) run(ctx context.Context) {
	pl := j.pl
	if j.fault != nil {
		switch j.fault.Kind {
		case FaultErrorEvent:
			// The engine fails the job halfway through its plan.
			half := pl.steps[len(pl.steps)-1].at / 2
			if sleepUntil(ctx, pl.accept.Add(half)) == nil {
				j.fail(newAPIError(http.StatusInternalServerError, "InternalServerError", "simulated engine failure", ""))
			}
			pl.done(errEngineFailed)
			return
		case FaultStall:
			// The job holds still for Delay: a poll timeout shorter than it expires.
			if sleepCtx(ctx, durationOf(j.fault)) != nil {
				pl.done(errAborted)
				return
			}
		}
	}
	if err := pl.run(ctx, func(step, bool) error { return nil }); err != nil {
		pl.done(err)
		return
	}
	pl.done(nil)
	j.complete()
}

func (j *videoJob) fail(e apiError) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.status, j.failure = "failed", &e
}

// complete publishes the job's results, as the pipeline stamped them.
func (j *videoJob) complete() {
	pl := j.pl
	final := map[string]any{"stage_durations": stageDurations(pl), "peak_memory_mb": 0.0,
		"num_frames": j.frames, "fps": j.fps, "duration_s": float64(j.frames) / float64(j.fps)}
	if j.metrics {
		final["metrics"] = pl.allMetrics(true)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.status, j.completed, j.elapsed, j.final = "completed", time.Now().Unix(), time.Since(pl.accept), final
}

// object is the job as GET /v1/videos/{id} shows it: vLLM-Omni's VideoResponse with the
// duration, frames and fps its benchmark reads.
func (j *videoJob) object() map[string]any {
	j.mu.Lock()
	defer j.mu.Unlock()
	o := map[string]any{"id": j.id, "object": "video", "model": j.model, "prompt": j.prompt, "status": j.status,
		"size": fmt.Sprintf("%dx%d", j.width, j.height), "seconds": j.seconds, "quality": "default",
		"created_at": j.created, "completed_at": nil, "error": nil, "media_type": "video/mp4",
		"inference_time_s": nil, "stage_durations": map[string]float64{}, "peak_memory_mb": 0.0, "progress": 0}
	switch j.status {
	case "completed":
		o["completed_at"], o["progress"], o["inference_time_s"] = j.completed, 100, j.elapsed.Seconds()
		for k, v := range j.final {
			o[k] = v
		}
	case "failed":
		o["error"] = map[string]any{"code": j.failure.Code, "message": j.failure.Message}
	default:
		elapsed, plan := time.Since(j.pl.accept), j.pl.steps[len(j.pl.steps)-1].at
		lead := j.pl.plans[len(j.pl.plans)-1].lead + j.pl.plans[len(j.pl.plans)-1].submit
		if elapsed >= lead {
			o["status"] = "in_progress"
			o["progress"] = min(99, int(100*elapsed/max(plan, 1)))
		}
	}
	return o
}

// handleVideoGet is GET /v1/videos/{id}.
func (s *Server) handleVideoGet(w http.ResponseWriter, r *http.Request) {
	j, ok := s.videoJobOf(w, r)
	if !ok || j.getFault(w, false) {
		return
	}
	b := mustJSON(j.object())
	if j.cut(false) {
		b = b[:len(b)/2]
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

// handleVideoContent is GET /v1/videos/{id}/content: an MP4 whose header boxes state
// the job's duration and frames (ftyp, moov, then an mdat of zero frames, about
// width·height/100 bytes a frame).
func (s *Server) handleVideoContent(w http.ResponseWriter, r *http.Request) {
	j, ok := s.videoJobOf(w, r)
	if !ok || j.getFault(w, true) {
		return
	}
	if j.object()["status"] != "completed" {
		writeHTTPError(w, http.StatusNotFound, fmt.Sprintf("Video %s is not completed.", j.id))
		return
	}
	size := min(int64(j.frames)*int64(max(j.width*j.height/100, 64)), maxVideoBytes)
	head := mp4Head(j.frames, j.fps, size)
	total := int64(len(head)) + size
	w.Header().Set("Content-Type", "video/mp4")
	w.Header().Set("Content-Length", strconv.FormatInt(total, 10))
	_, _ = w.Write(head)
	n := size
	if j.cut(true) {
		n = size / 2 // the server announced the whole clip
	}
	_, _ = io.CopyN(w, zeros{}, n)
}

func (s *Server) videoJobOf(w http.ResponseWriter, r *http.Request) (*videoJob, bool) {
	id := r.PathValue("id")
	j, ok := s.videos.get(id)
	if !ok {
		writeHTTPError(w, http.StatusNotFound, fmt.Sprintf("Video %s not found", id))
	}
	return j, ok
}

// getFault counts a GET of the job and acts out the job's fault on the After-th one (on
// the content at the latest, so a requested fault does not vanish): a status, or a reset.
// It reports whether the response is written. A cut body is cut's.
func (j *videoJob) getFault(w http.ResponseWriter, content bool) bool {
	f := j.fire(content, FaultHTTP429, FaultHTTP500, FaultHTTP503, FaultReset)
	switch {
	case f == nil:
		return false
	case f.Kind == FaultReset:
		resetConn(w)
	default:
		writeError(w, f.status(), fmt.Sprintf("simulated %d (%s)", f.status(), FaultHeader), "")
	}
	return true
}

// cut reports whether this GET's body is to be cut short: malformed cuts the After-th
// GET, truncated-wav the content.
func (j *videoJob) cut(content bool) bool {
	if content && j.fault != nil && j.fault.Kind == FaultTruncatedWAV {
		return true
	}
	return j.fire(content, FaultMalformed) != nil
}

// fire counts a GET and returns the job's fault when it is of kinds and due now. A job
// has one fault, so only the call of its kind counts: once per GET.
func (j *videoJob) fire(content bool, kinds ...FaultKind) *Fault {
	j.mu.Lock()
	defer j.mu.Unlock()
	f := j.fault
	if f == nil || j.fired || !contains(faultNames(kinds), string(f.Kind)) {
		return nil
	}
	j.gets++
	if j.gets < f.After && !content {
		return nil
	}
	j.fired = true
	return f
}

func faultNames(kinds []FaultKind) []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = string(k)
	}
	return out
}

// mp4Head is a clip's boxes up to its media data: ftyp; moov with the movie header
// (timescale fps, duration frames) and one video track whose sample table counts the
// frames; then the header of an mdat of size bytes.
func mp4Head(frames, fps int, size int64) []byte {
	u32 := func(vs ...uint32) []byte {
		var b []byte
		for _, v := range vs {
			b = binary.BigEndian.AppendUint32(b, v)
		}
		return b
	}
	box := func(typ string, parts ...[]byte) []byte {
		body := bytes.Join(parts, nil)
		return append(u32(uint32(8+len(body))), append([]byte(typ), body...)...)
	}
	stsz := box("stsz", u32(0, 0, uint32(frames)))
	trak := box("trak", box("mdia", box("hdlr", u32(0, 0), []byte("vide"), make([]byte, 13)), box("minf", box("stbl", stsz))))
	head := bytes.Join([][]byte{box("ftyp", []byte("isom\x00\x00\x02\x00isommp41")),
		box("moov", box("mvhd", u32(0, 0, 0, uint32(fps), uint32(frames)), make([]byte, 80)), trak)}, nil)
	return append(head, append(u32(uint32(min(size+8, math.MaxUint32))), "mdat"...)...)
}

// zeros reads zero bytes: a clip's frames.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
