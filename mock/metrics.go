package mock

import (
	"errors"
	"math"
	"sort"
	"strconv"
	"sync"
	"time"
)

// Bucket bounds of the real servers: vLLM's v1/metrics/loggers.py and
// vLLM-Omni's metrics/definitions.py (SECONDS, SECONDS_FAST and RTF buckets).
var (
	ttftBuckets    = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560}
	itlBuckets     = []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80}
	latencyBuckets = []float64{0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680}
	secondsBuckets = []float64{0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300}
	fastBuckets    = []float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60}
	rtfBuckets     = []float64{0.1, 0.25, 0.5, 0.75, 0.9, 1, 1.25, 1.5, 2, 5, 10}
)

// finishReasons are vLLM's FinishReason values, in its order; it creates a
// request_success series for each at start.
var finishReasons = []string{"stop", "length", "abort", "error", "repetition"}

const (
	// kvTokensPerSlot sizes the simulated KV cache: each of the knee's slots
	// holds this many tokens, so a full batch of short requests uses a
	// fraction of it and long prompts fill it.
	kvTokensPerSlot = 512
	// replica is the only replica of every stage the simulator runs.
	replica = "0"
)

// Prometheus metric types.
const (
	typeGauge     = "gauge"
	typeCounter   = "counter"
	typeHistogram = "histogram"
)

// family is one metric family of the page, its series in page order.
type family struct {
	name   string // as exposed; counters end in _total
	help   string
	typ    string
	labels []string
	bounds []float64 // histogram buckets' upper bounds, +Inf implied
	series []*series
}

// series is one label set of a family. A counter keeps its value in sum, a
// gauge the value its last scrape set.
type series struct {
	values []string
	bounds []float64
	// bound series are shown from the start, as the real servers bind them
	// at start-up; the others appear with their first observation.
	bound bool

	mu      sync.Mutex
	n       uint64   // observations: a histogram's count
	sum     float64  // a histogram's sum, a counter's or a gauge's value
	buckets []uint64 // observations per bucket (not cumulative), +Inf last
}

func (f *family) add(bound bool, values ...string) *series {
	s := &series{values: values, bounds: f.bounds, bound: bound}
	if f.typ == typeHistogram {
		s.buckets = make([]uint64, len(f.bounds)+1)
	}
	f.series = append(f.series, s)
	return s
}

// observe adds v: one observation of a histogram, an increment of a counter.
func (s *series) observe(v float64) {
	i := sort.SearchFloat64s(s.bounds, v) // the first bound >= v: le is inclusive
	s.mu.Lock()
	s.n++
	s.sum += v
	if s.buckets != nil {
		s.buckets[i]++
	}
	s.mu.Unlock()
}

func (s *series) set(v float64) {
	s.mu.Lock()
	s.sum = v
	s.mu.Unlock()
}

// snapshot copies the series' figures under its lock.
func (s *series) snapshot(buckets []uint64) (n uint64, sum float64, out []uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n, s.sum, append(buckets[:0], s.buckets...)
}

func (s *series) shown() bool {
	if s.bound {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n > 0
}

// metrics is every family of the page and, per served profile, the series
// a request records into, found without a lookup on the hot path.
type metrics struct {
	families  []*family
	models    []*modelMetrics
	byProfile map[*Profile]*modelMetrics
	knee      int
	// mu makes scrapes one at a time: each sets the gauges, then writes.
	mu sync.Mutex
}

// modelMetrics are one served model's series.
type modelMetrics struct {
	index int
	// engine is the stage the upstream vllm:* families describe: the first
	// text stage (the tokens the client reads), else the first stage.
	engine int

	running, waiting, kvUsage, omniRunning, omniWaiting *series
	stageInflight                                       []*series

	ttft, itl, e2e, promptTokens, genTokens *series
	success                                 map[string]*series

	omniE2E, omniPromptTokens, omniGenTokens, imageCount *series
	omniSuccess                                          map[string]*series

	stages []stageSeries
}

// stageSeries are one stage's vLLM-Omni series.
type stageSeries struct {
	audioTTFP, audioDuration, audioRTF, audioFrames *series
	imageTTFP, diffusionExec, denoiseStep           *series
	transferOut                                     *series // hand-overs to the next stage
}

// newMetrics lays out the page for the served profiles. The vLLM-Omni
// families take prefix "vllm_omni:" or, legacy, "vllm:omni_".
func newMetrics(profiles []Profile, prefix string, knee int) *metrics {
	m := &metrics{byProfile: map[*Profile]*modelMetrics{}, knee: knee}
	omni := func(name string) string {
		if prefix == MetricsPrefixLegacy {
			return "vllm:omni_" + name
		}
		return "vllm_omni:" + name
	}
	fam := func(name, typ string, bounds []float64, help string, labels ...string) *family {
		f := &family{name: name, help: help, typ: typ, labels: labels, bounds: bounds}
		m.families = append(m.families, f)
		return f
	}
	engine := []string{"model_name", "stage", "replica"}
	pipe := []string{"model_name"}
	stage := []string{"model_name", "stage", "replica"}

	// Upstream vLLM families, with the engine label vLLM-Omni's stat logger
	// rewrites into stage (the stage's name) and replica.
	running := fam("vllm:num_requests_running", typeGauge, nil, "Number of requests in model execution batches.", engine...)
	waiting := fam("vllm:num_requests_waiting", typeGauge, nil, "Number of requests waiting to be processed.", engine...)
	kvUsage := fam("vllm:kv_cache_usage_perc", typeGauge, nil, "KV-cache usage. 1 means 100 percent usage.", engine...)
	promptTokens := fam("vllm:prompt_tokens_total", typeCounter, nil, "Number of prefill tokens processed.", engine...)
	genTokens := fam("vllm:generation_tokens_total", typeCounter, nil, "Number of generation tokens processed.", engine...)
	success := fam("vllm:request_success_total", typeCounter, nil, "Count of successfully processed requests.", append(engine, "finished_reason")...)
	ttft := fam("vllm:time_to_first_token_seconds", typeHistogram, ttftBuckets, "Histogram of time to first token in seconds.", engine...)
	itl := fam("vllm:inter_token_latency_seconds", typeHistogram, itlBuckets, "Histogram of inter-token latency in seconds.", engine...)
	e2e := fam("vllm:e2e_request_latency_seconds", typeHistogram, latencyBuckets, "Histogram of e2e request latency in seconds.", engine...)

	// vLLM-Omni families (metrics/prometheus.py, modality.py, transfer.py).
	omniRunning := fam(omni("num_requests_running"), typeGauge, nil, "Number of requests currently running across all pipeline stages.", pipe...)
	omniWaiting := fam(omni("num_requests_waiting"), typeGauge, nil, "Number of requests waiting to be scheduled.", pipe...)
	stageInflight := fam(omni("stage_inflight_requests"), typeGauge, nil,
		"Requests in flight by the stage they are in. Simulator only: vLLM-Omni has no such family.", "model_name", "stage")
	omniE2E := fam(omni("e2e_request_latency_s"), typeHistogram, secondsBuckets,
		"Pipeline-global end-to-end request latency in seconds (user arrival to complete response).", pipe...)
	omniSuccess := fam(omni("requests_success_total"), typeCounter, nil,
		"Total requests by completion reason (stop / length / abort / ...). Aborts cover client-disconnect / "+
			"cancellation paths in addition to upstream FinishReason.ABORT.", "model_name", "finished_reason")
	omniPrompt := fam(omni("prompt_tokens_total"), typeCounter, nil, "Total prompt (input) tokens processed across all pipeline stages.", pipe...)
	omniGen := fam(omni("generation_tokens_total"), typeCounter, nil, "Total generation (output) tokens produced across all pipeline stages.", pipe...)
	audioTTFP := fam(omni("audio_ttfp_s"), typeHistogram, secondsBuckets, "Time from request arrival to first audio packet/frame, in seconds.", stage...)
	audioDuration := fam(omni("audio_duration_s"), typeHistogram, secondsBuckets,
		"Generated audio content duration in seconds (audio_frames / sample_rate).", stage...)
	audioRTF := fam(omni("audio_rtf"), typeHistogram, rtfBuckets,
		"Audio real-time factor (stage_gen_time_s / audio_duration_s); streaming TTS requires < 1.", stage...)
	audioFrames := fam(omni("audio_frames_total"), typeCounter, nil,
		"Cumulative audio frame count; per-model rate (not summable across models). Throughput recovered via rate().", stage...)
	imageCount := fam(omni("image_count_total"), typeCounter, nil, "Cumulative image count; per-model rate. Throughput recovered via rate().", pipe...)
	imageTTFP := fam(omni("image_ttfp_s"), typeHistogram, secondsBuckets,
		"Image time-to-first-output in seconds (stage submit → first image materialized; non-streaming single-image). "+
			"Stage-level, not e2e — excludes API queue and inter-stage transfer before the image stage.", stage...)
	diffusionExec := fam(omni("diffusion_exec_s"), typeHistogram, secondsBuckets, "DiT forward pass execution time per request in seconds.", stage...)
	denoiseStep := fam(omni("denoise_step_latency_s"), typeHistogram, fastBuckets,
		"Mean per-step denoise forward latency in seconds (forward_time / num_inference_steps).", stage...)
	transfer := fam(omni("transfer_in_flight_s"), typeHistogram, fastBuckets, "Network in-flight time in seconds (TX done -> RX recv start).",
		"model_name", "from_stage", "from_replica", "to_stage", "to_replica")

	for i := range profiles {
		p := &profiles[i]
		mm := &modelMetrics{index: i, engine: max(p.has(OutputText), 0),
			success: map[string]*series{}, omniSuccess: map[string]*series{}}
		model, eng := p.Model, p.Stages[mm.engine].Name
		mm.running = running.add(true, model, eng, replica)
		mm.waiting = waiting.add(true, model, eng, replica)
		mm.kvUsage = kvUsage.add(true, model, eng, replica)
		mm.promptTokens = promptTokens.add(true, model, eng, replica)
		mm.genTokens = genTokens.add(true, model, eng, replica)
		for _, r := range finishReasons {
			mm.success[r] = success.add(true, model, eng, replica, r)
		}
		mm.ttft = ttft.add(true, model, eng, replica)
		mm.itl = itl.add(true, model, eng, replica)
		mm.e2e = e2e.add(true, model, eng, replica)

		mm.omniRunning = omniRunning.add(true, model)
		mm.omniWaiting = omniWaiting.add(true, model)
		mm.omniE2E = omniE2E.add(true, model)
		for _, r := range finishReasons {
			mm.omniSuccess[r] = omniSuccess.add(false, model, r)
		}
		mm.omniPromptTokens = omniPrompt.add(true, model)
		mm.omniGenTokens = omniGen.add(true, model)
		mm.imageCount = imageCount.add(true, model)
		for si := range p.Stages {
			id := strconv.Itoa(si)
			mm.stageInflight = append(mm.stageInflight, stageInflight.add(true, model, id))
			ss := stageSeries{
				audioTTFP:     audioTTFP.add(false, model, id, replica),
				audioDuration: audioDuration.add(false, model, id, replica),
				audioRTF:      audioRTF.add(false, model, id, replica),
				audioFrames:   audioFrames.add(false, model, id, replica),
				imageTTFP:     imageTTFP.add(false, model, id, replica),
				diffusionExec: diffusionExec.add(false, model, id, replica),
				denoiseStep:   denoiseStep.add(false, model, id, replica),
			}
			if si+1 < len(p.Stages) {
				ss.transferOut = transfer.add(false, model, id, replica, strconv.Itoa(si+1), replica)
			}
			mm.stages = append(mm.stages, ss)
		}
		m.models = append(m.models, mm)
		m.byProfile[p] = mm
	}
	return m
}

func seconds(d time.Duration) float64 { return d.Seconds() }

// observeOutput records what one output, just stamped, tells: the first
// token and the gaps between tokens of the engine's visible text, the first
// audio packet, and a hand-over to the next stage.
func (m *modelMetrics) observeOutput(pl *pipeline, st step) {
	stage, stamps := pl.stages[st.stage], pl.stamps[st.stage]
	at := stamps[len(stamps)-1]
	if pl.visible[st.stage] {
		switch {
		case st.stage == m.engine && stage.Output == OutputText:
			if len(stamps) == 1 {
				m.ttft.observe(seconds(at.Sub(pl.accept)))
			} else {
				m.itl.observe(seconds(at.Sub(stamps[len(stamps)-2])))
			}
		case stage.Output == OutputAudio && len(stamps) == 1:
			m.stages[st.stage].audioTTFP.observe(seconds(at.Sub(pl.accept)))
		}
	}
	next := st.stage + 1
	if next < len(pl.stages) && (!pl.stages[next].WaitForUpstream || st.index == len(pl.plans[st.stage].outputs)-1) {
		// The simulated stages share one process: a hand-over takes no time.
		m.stages[st.stage].transferOut.observe(0)
	}
}

// finishRequest records a request's end: tokens, its finished_reason and,
// when it succeeded, its e2e latency and what its finished stages made.
func (m *modelMetrics) finishRequest(pl *pipeline, err error) {
	engineTokens, allTokens := 0, 0
	for i, st := range pl.stages {
		made := sum(pl.plans[i].units[:len(pl.stamps[i])])
		if i == m.engine {
			engineTokens = made
		}
		if st.Output == OutputText || st.Output == OutputStream {
			allTokens += made
		}
	}
	m.promptTokens.observe(float64(pl.tokensIn))
	m.genTokens.observe(float64(engineTokens))
	m.omniPromptTokens.observe(float64(pl.tokensIn))
	m.omniGenTokens.observe(float64(allTokens))
	if err != nil {
		reason := "abort"
		if errors.Is(err, errEngineFailed) {
			reason = "error"
		}
		m.success[reason].observe(1)
		// vLLM-Omni's request_failed counts every failure as an abort.
		m.omniSuccess["abort"].observe(1)
		return
	}
	reason := pl.finish
	if m.success[reason] == nil {
		reason = "stop"
	}
	m.success[reason].observe(1)
	m.omniSuccess[reason].observe(1)
	last := pl.steps[pl.lastShown]
	e2e := seconds(pl.stamps[last.stage][last.index].Sub(pl.accept))
	m.e2e.observe(e2e)
	m.omniE2E.observe(e2e)
	for i, st := range pl.stages {
		sp, stamps, ss := pl.plans[i], pl.stamps[i], m.stages[i]
		if len(stamps) < len(sp.outputs) {
			continue // cut short by the last visible output: never finished
		}
		gen := stamps[len(stamps)-1].Sub(pl.accept.Add(sp.submit))
		switch st.Output {
		case OutputAudio:
			// The same frames the stage metrics report and the client decodes.
			frames := sum(sp.units) * int(math.Round(st.AudioSecondsPerChunk*float64(st.SampleRate)))
			duration := float64(frames) / float64(st.SampleRate)
			ss.audioFrames.observe(float64(frames))
			if duration > 0 {
				ss.audioDuration.observe(duration)
				ss.audioRTF.observe(seconds(gen) / duration)
			}
		case OutputImage:
			m.imageCount.observe(float64(sum(sp.units)))
			ss.imageTTFP.observe(seconds(gen))
			exec := gen - sp.lead
			ss.diffusionExec.observe(seconds(exec))
			if sp.steps > 0 {
				ss.denoiseStep.observe(seconds(exec) / float64(sp.steps))
			}
		}
	}
}

// setGauges sets every gauge from the requests in flight at now.
func (m *metrics) setGauges(live []*pipeline, now time.Time) {
	type state struct{ running, waiting, tokens int }
	per := make([]state, len(m.models))
	stages := make([][]int, len(m.models))
	for i, mm := range m.models {
		stages[i] = make([]int, len(mm.stageInflight))
	}
	for i, pl := range live {
		c := &per[pl.met.index]
		stage, tokens := pl.view(now)
		if i < m.knee {
			c.running++
			c.tokens += tokens
		} else {
			c.waiting++
		}
		stages[pl.met.index][stage]++
	}
	for i, mm := range m.models {
		c := per[i]
		mm.running.set(float64(c.running))
		mm.waiting.set(float64(c.waiting))
		mm.omniRunning.set(float64(c.running))
		mm.omniWaiting.set(float64(c.waiting))
		usage := 0.0
		if m.knee > 0 {
			usage = min(1, float64(c.tokens)/float64(m.knee*kvTokensPerSlot))
		}
		mm.kvUsage.set(usage)
		for si, n := range stages[i] {
			mm.stageInflight[si].set(float64(n))
		}
	}
}

// Observed is what the simulator recorded on its /metrics page since it
// started: a test scrapes the page and checks its figures against these.
// Keys are the family names as exposed (they follow Config.MetricsPrefix).
type Observed struct {
	// Histograms holds each histogram family's count and sum over all its
	// series: the count is exact, the mean is Sum/Count.
	Histograms map[string]HistogramTotals
	// Counters holds each counter family's value over all its series, by
	// its name with _total.
	Counters map[string]float64
	// PeakRunning and PeakWaiting are the highest num_requests_running and
	// num_requests_waiting, over all models, the scheduler has been in,
	// tracked on every admission rather than sampled at scrapes.
	PeakRunning, PeakWaiting int
}

// HistogramTotals is one histogram family's count and sum.
type HistogramTotals struct {
	Count uint64
	Sum   float64
}

// Observed returns the exact totals of every histogram and counter family
// of /metrics and the peaks of the scheduler gauges, whether or not /metrics
// is served. Sums add the series in page order, as a scraper would.
func (s *Server) Observed() Observed {
	o := Observed{Histograms: map[string]HistogramTotals{}, Counters: map[string]float64{}}
	var scratch []uint64
	for _, f := range s.metrics.families {
		var t HistogramTotals
		for _, se := range f.series {
			var n uint64
			var v float64
			n, v, scratch = se.snapshot(scratch)
			t.Count += n
			t.Sum += v
		}
		switch f.typ {
		case typeHistogram:
			o.Histograms[f.name] = t
		case typeCounter:
			o.Counters[f.name] = t.Sum
		}
	}
	o.PeakRunning, o.PeakWaiting = s.sched.peaks()
	return o
}
