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
// GET /v1/models; POST /v1/chat/completions (streaming or not; text, audio
// as a base64 WAV or PCM file per chunk in delta.content, images as
// image_url parts; role chunk, modality, usage, [DONE]; metrics.stage_metrics
// when return_stage_metrics is set; OpenAI-style delta.audio with
// Config.OpenAIAudio); POST /v1/images/generations (JSON); POST
// /v1/images/edits (multipart; stream=true gives ar_delta events, then the
// image, on AR+DiT profiles); POST /v1/audio/speech (raw stream with
// stream_format "audio", SSE with "sse" or stream=true, else one body with
// x-vllm-omni-*-tokens headers); websocket /v1/audio/speech/stream.
// Invalid requests get the status and error body a real server sends.
//
// # Profiles and timing
//
// Each served profile is one model (see ProfileNames): qwen3-omni (thinker →
// talker → code2wav), bagel (thinker → dit), hunyuan-image (AR → dit) and tts
// (talker → code2wav). A request with no model gets the first served profile
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
//	 "profiles": [{"name": "qwen3-omni", "stages": [{"name": "thinker", "time_per_unit": "12ms"}]}],
//	 "faults": ["http503,p=0.01", {"kind": "stall", "p": 0.05, "after": 10, "delay": "3s"}]}
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
package mock
