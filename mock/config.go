package mock

import (
	"encoding/json"
	"fmt"
	"os"
)

// Config is every setting of the simulator; `omnik mock --config file.json`
// reads it and the command's flags override it through the Options below.
type Config struct {
	// Profile serves only this profile; empty serves every profile (built-in
	// and custom) and a request without a model gets the first that fits.
	Profile string `json:"profile,omitempty"`
	// Profiles adds custom profiles or overrides built-in ones by name.
	Profiles []Profile `json:"profiles,omitempty"`
	// Seed makes generated text, audio, images, jitter and fault draws repeatable.
	Seed int64 `json:"seed"`
	// Speed divides every simulated duration: 10 runs ten times faster.
	Speed float64 `json:"speed"`
	// Jitter spreads each simulated gap by ±Jitter (0.1 = ±10%), seeded.
	Jitter float64 `json:"jitter"`
	// KneeConcurrency is the number of requests in flight the server absorbs
	// before per-unit latency grows by LoadSlope for each request beyond it.
	KneeConcurrency int     `json:"knee_concurrency"`
	LoadSlope       float64 `json:"load_slope"`
	// OpenAIAudio streams chat audio OpenAI-style (delta.audio, raw PCM16)
	// instead of vLLM-Omni's base64 WAV in delta.content.
	OpenAIAudio bool `json:"openai_audio"`
	// RealtimeLane is what /v1/realtime speaks without ?duplex=1: RealtimeLaneOmni
	// ("vllm-omni", the default; "" means the same) or RealtimeLaneOpenAI ("openai").
	RealtimeLane string `json:"realtime_lane,omitempty"`
	// Faults apply to every request with their probability.
	Faults []Fault `json:"faults,omitempty"`
	// MetricsPrefix names the vLLM-Omni families of GET /metrics: "vllm_omni"
	// (vllm_omni:audio_ttfp_s, the default; "" means the same) or "legacy"
	// (vllm:omni_audio_ttfp_s, as older servers name them).
	MetricsPrefix string `json:"metrics_prefix,omitempty"`
	// NoMetrics answers GET /metrics with 404, like a server without metrics.
	NoMetrics bool `json:"no_metrics,omitempty"`
}

// The values of Config.MetricsPrefix.
const (
	MetricsPrefixOmni   = "vllm_omni"
	MetricsPrefixLegacy = "legacy"
)

// DefaultConfig is what New starts from: all profiles, real-time speed, a
// knee at 8 concurrent requests with +10% per-unit latency per extra request.
func DefaultConfig() Config {
	return Config{Seed: 1, Speed: 1, KneeConcurrency: 8, LoadSlope: 0.1, MetricsPrefix: MetricsPrefixOmni}
}

// LoadConfig reads a JSON config file over DefaultConfig.
func LoadConfig(path string) (Config, error) {
	c := DefaultConfig()
	b, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("mock config: %w", err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("mock config %s: %w", path, err)
	}
	return c, nil
}

// Option changes the Config New starts from.
type Option func(*Config)

// WithConfig replaces the whole config (later options still apply on top).
func WithConfig(c Config) Option { return func(dst *Config) { *dst = c } }

// WithProfile serves only the named profile.
func WithProfile(name string) Option { return func(c *Config) { c.Profile = name } }

// WithProfiles adds custom profiles or overrides built-ins of the same name.
func WithProfiles(ps ...Profile) Option {
	return func(c *Config) { c.Profiles = append(c.Profiles, ps...) }
}

// WithSeed sets the seed of every generated value and fault draw.
func WithSeed(seed int64) Option { return func(c *Config) { c.Seed = seed } }

// WithSpeed divides every simulated duration by speed (10 = ten times faster).
func WithSpeed(speed float64) Option { return func(c *Config) { c.Speed = speed } }

// WithJitter spreads each simulated gap by ±fraction.
func WithJitter(fraction float64) Option { return func(c *Config) { c.Jitter = fraction } }

// WithLoadCurve sets the knee (requests in flight) and the per-unit latency
// growth per request beyond it; slope 0 makes latency independent of load.
func WithLoadCurve(knee int, slope float64) Option {
	return func(c *Config) { c.KneeConcurrency, c.LoadSlope = knee, slope }
}

// WithFaults injects faults into every request, each with its probability.
func WithFaults(fs ...Fault) Option { return func(c *Config) { c.Faults = append(c.Faults, fs...) } }

// WithOpenAIAudio switches chat audio to OpenAI's delta.audio streaming.
func WithOpenAIAudio(on bool) Option { return func(c *Config) { c.OpenAIAudio = on } }

// WithRealtimeLane sets what /v1/realtime speaks without ?duplex=1: RealtimeLaneOmni
// or RealtimeLaneOpenAI.
func WithRealtimeLane(lane string) Option { return func(c *Config) { c.RealtimeLane = lane } }

// WithMetricsPrefix names the vLLM-Omni families of /metrics: MetricsPrefixOmni
// or MetricsPrefixLegacy.
func WithMetricsPrefix(prefix string) Option { return func(c *Config) { c.MetricsPrefix = prefix } }

// WithoutMetrics makes GET /metrics answer 404, like a server without metrics.
func WithoutMetrics() Option { return func(c *Config) { c.NoMetrics = true } }

// resolveProfiles merges built-ins with c.Profiles and applies c.Profile.
func (c *Config) resolveProfiles() ([]Profile, error) {
	all := builtinProfiles()
	for _, p := range c.Profiles {
		replaced := false
		for i := range all {
			if all[i].Name == p.Name {
				all[i], replaced = p, true
			}
		}
		if !replaced {
			all = append(all, p)
		}
	}
	for i := range all {
		if err := all[i].validate(); err != nil {
			return nil, err
		}
	}
	if c.Profile == "" {
		return all, nil
	}
	for _, p := range all {
		if p.Name == c.Profile {
			return []Profile{p}, nil
		}
	}
	return nil, fmt.Errorf("mock: unknown profile %q (known: %s)", c.Profile, describeProfiles(all))
}

func (c *Config) validate() error {
	if c.Speed <= 0 {
		return fmt.Errorf("mock: speed must be > 0, got %v", c.Speed)
	}
	if c.Jitter < 0 || c.Jitter >= 1 {
		return fmt.Errorf("mock: jitter must be in [0, 1), got %v", c.Jitter)
	}
	if c.KneeConcurrency < 0 || c.LoadSlope < 0 {
		return fmt.Errorf("mock: knee_concurrency and load_slope must be >= 0")
	}
	switch c.MetricsPrefix {
	case "", MetricsPrefixOmni, MetricsPrefixLegacy:
	default:
		return fmt.Errorf("mock: metrics_prefix must be %q or %q, got %q", MetricsPrefixOmni, MetricsPrefixLegacy, c.MetricsPrefix)
	}
	switch c.RealtimeLane {
	case "", RealtimeLaneOmni, RealtimeLaneOpenAI:
	default:
		return fmt.Errorf("mock: realtime_lane must be %q or %q, got %q", RealtimeLaneOmni, RealtimeLaneOpenAI, c.RealtimeLane)
	}
	for _, f := range c.Faults {
		if err := f.validate(); err != nil {
			return err
		}
	}
	return nil
}
