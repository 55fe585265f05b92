package report

import "time"

// Request is one request's measurements, the counterpart of the reference client's
// per-request output. Client-clock values are durations from the request's start; zero
// means "not observed" unless a field says otherwise.
type Request struct {
	Success bool
	Error   string // failure reason; empty on success

	Start       time.Duration // start offset (just before the request was written) from any fixed origin shared by the run
	Latency     time.Duration // E2EL
	TTFT        time.Duration // first text chunk with content; 0 when no text arrived
	TTFC        time.Duration // omnik: first non-empty chunk of any modality (goodput key ttfc)
	ITL         []time.Duration
	TextLatency time.Duration // last text chunk

	InputTokens  int // prompt_len: usage.prompt_tokens
	OutputTokens int // n: largest usage.completion_tokens / num_tokens_out; 0 without text

	AudioTTFP     time.Duration
	AudioRTF      float64
	AudioDuration time.Duration
	AudioFrames   int64
	// AudioUnderrun is the continuity underrun of a raw speech stream; nil when the backend
	// gives no measurement (chat), which counts as continuity OK.
	AudioUnderrun *time.Duration

	Images            int
	ImagePixels       int64
	ImageGenerationMS float64 // server generation time of the images
	DenoiseStepMS     float64 // server denoise step latency

	InputAudioDuration time.Duration // ASR input audio, for rtfx
	GeneratedText      string        // only for --save-detailed

	Stages []Stage // one merged row per stage (§6.2)
}

// Stage is one stage's server-reported metrics for one request, as merged from
// `metrics.stage_metrics`. The JSON tags are the wire keys, so a stage dict decodes
// straight into it; pointers mark keys whose absence differs from zero.
type Stage struct {
	ID              int    `json:"stage_id"`
	Name            string `json:"stage_name"`
	FinalOutputType string `json:"final_output_type"`
	OutputUnitType  string `json:"output_unit_type"`
	OutputUnitCount int    `json:"output_unit_count"`

	GenTimeMS     float64   `json:"stage_gen_time_ms"`
	PostprocessMS float64   `json:"postprocess_time_ms"`
	ServingTTFOMS *float64  `json:"serving_time_to_first_output_ms"`
	TPOPMS        *float64  `json:"time_per_output_unit_ms"`
	ICLMS         []float64 `json:"inter_output_latencies_ms"`
	MeanICLMS     *float64  `json:"inter_output_latency_ms"`
	VLLMTTFTMS    float64   `json:"vllm_ttft_ms"`
	VLLMTPOTMS    float64   `json:"vllm_tpot_ms"`
	VLLMITLsMS    []float64 `json:"vllm_itls_ms"`
	VLLMMeanITLMS *float64  `json:"vllm_itl_ms"`
	NumTokensIn   int       `json:"num_tokens_in"`
	NumTokensOut  int       `json:"num_tokens_out"`

	AudioFrames     int64   `json:"audio_frames"`
	AudioSampleRate int     `json:"audio_sample_rate"`
	AudioDurationS  float64 `json:"audio_duration_s"`
	AudioRTF        float64 `json:"audio_rtf"` // sent by #3628 servers only

	ImagePixels          int64   `json:"image_pixels"`
	DenoiseStepLatencyMS float64 `json:"denoise_step_latency_ms"`
}
