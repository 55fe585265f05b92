// Package mock is a simulated vLLM-Omni server: the same wire formats, a
// multi-stage timing model with stage metrics, a load-dependent latency
// curve and injectable faults. `omnik mock` serves it, `omnik run --mock`
// starts it on a loopback port, and omnik's tests run against it.
//
// # Use
//
//	s, err := mock.New(mock.WithProfile("qwen3-omni"), mock.WithSpeed(10))
//	url, err := s.StartLoopback() // or s.Start("127.0.0.1:8000"), or mount s.Handler()
//	defer s.Close()
//
// # Endpoints
//
// GET /v1/models; GET /metrics (see Metrics); POST /v1/chat/completions (streaming or not; text, audio
// as a base64 WAV or PCM file per chunk in delta.content, images as
// image_url parts; role chunk, modality, usage, [DONE]; metrics.stage_metrics
// when return_stage_metrics is set; OpenAI-style delta.audio with
// Config.OpenAIAudio); POST /v1/images/generations (JSON); POST
// /v1/images/edits (multipart; stream=true gives ar_delta events, then the
// image, on AR+DiT profiles); POST /v1/audio/speech (raw stream with
// stream_format "audio", SSE with "sse" or stream=true, else one body with
// x-vllm-omni-*-tokens headers); websocket /v1/audio/speech/stream; websocket
// /v1/realtime (Config.RealtimeLane: vLLM-Omni's default events or the OpenAI lane)
// and its duplex lane (?duplex=1, /v1/duplex), a pipeline per turn (docs/mock.md);
// POST /v1/videos, GET /v1/videos/{id} and GET /v1/videos/{id}/content (see Video
// jobs). Invalid requests get the status and error body a real server sends.
//
// # Profiles and timing
//
// Each served profile is one model (see ProfileNames): qwen3-omni (thinker →
// talker → code2wav), bagel (thinker → dit), hunyuan-image (AR → dit), tts
// (talker → code2wav) and wan-video (dit, whose output is a video). A request with no model gets the first served profile
// that produces what the endpoint returns. Every Stage has its own time to
// first output, time per unit, units per chunk, denoise steps and step time,
// audio seconds per chunk; Config.Jitter spreads each gap, Config.Speed
// divides every duration, and past Config.KneeConcurrency requests in flight
// each unit takes 1+LoadSlope·(inflight−knee) times longer. Stage metrics
// are computed from the moments outputs were written, so they agree with
// what a client measures. Text, audio (PCM16 tones) and images (PNG) are
// deterministic for a seed and a request.
//
// # Config file
//
// LoadConfig reads JSON onto DefaultConfig. A profile named like a built-in
// changes only the fields it sets, stages matched by name:
//
//	{"profile": "qwen3-omni", "seed": 7, "speed": 2, "jitter": 0.1,
//	 "knee_concurrency": 16, "load_slope": 0.05, "openai_audio": false,
//	 "metrics_prefix": "vllm_omni", "no_metrics": false, "realtime_lane": "vllm-omni",
//	 "profiles": [{"name": "qwen3-omni", "stages": [{"name": "thinker", "time_per_unit": "12ms"}]}],
//	 "faults": ["http503,p=0.01", {"kind": "stall", "p": 0.05, "after": 10, "delay": "3s"}]}
//
// # Video jobs
//
// POST /v1/videos creates an async job. It takes multipart (as vLLM-Omni does),
// urlencoded or JSON, with prompt, model, size (or width and height), seconds,
// num_frames, fps, num_inference_steps and return_stage_metrics; num_frames
// defaults to seconds·fps, else 33 at 16 fps, and size to 832x480. GET
// /v1/videos/{id} answers the job object (vLLM-Omni's VideoResponse). It is
// queued until the diffusion stage's first denoise step is due, then
// in_progress with a progress figure, then completed with stage_durations,
// inference_time_s, duration_s, num_frames, fps and, when asked, metrics
// (stage metrics, output_unit_type video). GET /v1/videos/{id}/content is an
// MP4 whose header boxes state the duration and frames (ftyp; moov with mvhd
// and one video track's stsz; an mdat of zero frames, about width·height/100
// bytes a frame), with its Content-Length. The job runs on the wan-video profile's
// stage model, load knee included, whether or not it is polled. The
// simulator keeps the last 4096 jobs.
//
// Faults are drawn at the create. error-event fails the job halfway
// (status failed, error {code: 500, message}). stall holds the job unfinished
// for delay. A status fault with after=0 refuses the create; otherwise it
// answers the after-th GET of the job (polls and content count; default 3).
// reset and malformed strike the after-th GET the same way: a reset, or a
// body cut in half. Either way the content GET takes the fault at the latest.
// truncated-wav cuts the content short of its Content-Length. slow-headers
// delays the create.
//
// # Faults
//
// A fault is a kind, a probability p (default 1), after (events streamed
// before it fires, default 3; it fires on the last output if the stream is
// shorter) and delay (stall and slow-headers, default 2s, wall time). Kinds:
// http429, http500, http503 (an error status before the stream),
// error-event (the endpoint's in-stream error, then [DONE] where the
// endpoint sends one; raw audio streams are aborted), reset (TCP RST),
// malformed (one event that is not JSON), stall, slow-headers and
// truncated-wav (an audio payload cut short of its header's size and
// mid-sample; after counts audio payloads). They come from Config.Faults,
// or per request from the X-Omnik-Mock-Fault header in ParseFaults syntax,
// e.g. "X-Omnik-Mock-Fault: stall,after=5,delay=1s". Draws use a seeded RNG.
//
// # Metrics
//
// GET /metrics is Prometheus text format 0.0.4, written by hand: HELP and
// TYPE for every family, histograms as cumulative le buckets up to +Inf,
// _sum and _count, no _created samples. Names, labels, help texts and
// buckets are those of vLLM (v1/metrics/loggers.py) and vLLM-Omni
// (metrics/definitions.py). model_name is the profile's Model; replica is
// always "0". Config.MetricsPrefix "legacy" names the vLLM-Omni families
// vllm:omni_<name>, as older servers do; Config.NoMetrics answers 404.
//
// Upstream families describe one engine per model, the stage whose tokens
// the client reads (the first text stage, else the first), labelled
// {model_name, stage (its name), replica} as vLLM-Omni's stat logger
// relabels vLLM's engine: vllm:num_requests_running,
// vllm:num_requests_waiting, vllm:kv_cache_usage_perc (gauges);
// vllm:prompt_tokens_total, vllm:generation_tokens_total,
// vllm:request_success_total (+finished_reason, one series per vLLM
// FinishReason from the start) (counters); vllm:time_to_first_token_seconds,
// vllm:inter_token_latency_seconds, vllm:e2e_request_latency_seconds.
//
// vLLM-Omni families, {model_name}: vllm_omni:num_requests_running,
// num_requests_waiting (gauges), e2e_request_latency_s, prompt_tokens_total,
// generation_tokens_total, image_count_total, requests_success_total
// (+finished_reason). Per stage, {model_name, stage (its index), replica}:
// audio_ttfp_s, audio_duration_s, audio_rtf, audio_frames_total,
// image_ttfp_s, diffusion_exec_s, denoise_step_latency_s. Per hand-over
// between consecutive stages, {model_name, from_stage, from_replica,
// to_stage, to_replica}: transfer_in_flight_s. stage_inflight_requests
// {model_name, stage} is the simulator's own gauge; no real server has it.
// Per-stage series and those of requests_success_total appear with their
// first observation, as prometheus_client creates them; the rest from start.
//
// Observations come from the stamps the pipeline writes outputs with (the
// ones stage metrics use), measured from the request's admission: what a
// client measures minus the network. TTFT runs to the engine stage's first
// text output, for requests that see that text; each later text output adds
// its gap to the inter-token latency (one per output, as vLLM adds one per
// engine step); audio_ttfp_s runs to the first audio output. A request that
// succeeds adds its e2e latency (to its last output written) to both e2e
// histograms and, per finished stage: its audio frames, audio_duration_s
// (frames over sample rate) and audio_rtf (stage submit to last output, over
// the duration); its images, image_ttfp_s (stage submit to image),
// diffusion_exec_s (that, less the stage's time_to_first_output) and
// denoise_step_latency_s (diffusion_exec_s over the steps; stage metrics'
// denoise_step_latency_ms divides the whole stage time instead).
// transfer_in_flight_s takes one 0 per output handed to the next stage (the
// last only, for a stage that waits for its upstream): simulated stages share
// a process. Every admitted request, served or not, adds its prompt tokens
// to both prompt counters, the tokens its engine stage made to
// vllm:generation_tokens_total and those of all its text and codec stages
// to vllm_omni:generation_tokens_total.
//
// finished_reason is the text stage's (stop, length) for a request served.
// One the engine failed (error-event) is "error" upstream and "abort" in
// vllm_omni:requests_success_total, where vLLM-Omni counts every failure;
// one cut short (reset, client gone) is "abort" in both; failures add no e2e
// latency. A status fault answers before the engine and counts nowhere;
// malformed, truncated-wav, stall and slow-headers requests are served as
// far as the server knows.
//
// Gauges are the state at the scrape. A request is in flight from its
// admission to its end, the requests the latency curve counts; of those,
// across models, the KneeConcurrency admitted first are running and the rest
// waiting, so num_requests_running = min(inflight, knee) and
// num_requests_waiting = inflight − running rises exactly where units start
// to slow (knee 0: all wait). kv_cache_usage_perc is the running requests'
// tokens (prompt and what the engine stage made so far) over knee × 512, at
// most 1. stage_inflight_requests puts each request in flight in the stage
// of the output it works on: the first not yet due by its plan, or the one
// a stall holds. Server.Observed returns the exact count and sum of every
// histogram family, every counter's total and the peaks of the two
// scheduler gauges.
//
// Not simulated, so not served: vLLM's prefix cache, preemption, per-request
// token and phase histograms (request_*_tokens, queue, prefill, decode,
// inference time), the deprecated time_per_output_token, iteration_tokens,
// cache_config_info, and the upstream series of the other engine stages
// (talker, code2wav); vLLM-Omni's audio underrun, continuity and skipped
// requests (playback and codec failures the simulator does not model),
// transfer sizes and TX/RX times, video, the other diffusion timings
// (preprocess, postprocess, per step, forward, VAE decode, KV load),
// stage_gen_time_s, request_queue_wait_s, stage_waiting_requests,
// num_inference_steps, image_pixels, peak_memory_mb, requests_failed_total,
// kv_wait_s and the duplex families.
package mock
