package mock

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Output kinds a stage produces. Text, audio and image reach the client; stream
// is handed to the next stage only (the talker's codec tokens), as in vLLM-Omni.
const (
	OutputText   = "text"
	OutputStream = "stream"
	OutputAudio  = "audio"
	OutputImage  = "image"
	OutputVideo  = "video" // a diffusion stage like image, whose output is one clip (/v1/videos)
)

// Duration is a time.Duration that reads from JSON as a Go duration string
// ("80ms") or a number of milliseconds, so config files stay readable.
type Duration time.Duration

// UnmarshalJSON accepts "1.5s" or 1500 (milliseconds).
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("duration %q: %w", s, err)
		}
		*d = Duration(v)
		return nil
	}
	var ms float64
	if err := json.Unmarshal(b, &ms); err != nil {
		return fmt.Errorf("duration %s: want a string like \"80ms\" or milliseconds", b)
	}
	*d = Duration(ms * float64(time.Millisecond))
	return nil
}

// MarshalJSON writes the Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// Stage is one step of a simulated pipeline and its timing at no load and Speed 1.
type Stage struct {
	Name string `json:"name"`
	// Output is one of OutputText, OutputStream, OutputAudio, OutputImage, OutputVideo.
	Output string `json:"output"`
	// FinalOutputType is reported as final_output_type in the stage metrics.
	FinalOutputType string `json:"final_output_type,omitempty"`
	// Units per request: tokens for text and stream stages, chunks for audio.
	// Image stages produce one image per requested n.
	Units int `json:"units,omitempty"`
	// UnitsPerChunk groups tokens into one output (one SSE chunk for text).
	UnitsPerChunk int `json:"units_per_chunk,omitempty"`
	// TimeToFirstOutput runs from the stage's start to its first output.
	TimeToFirstOutput Duration `json:"time_to_first_output,omitempty"`
	// TimePerUnit is the gap between units (tokens, or audio chunks).
	TimePerUnit Duration `json:"time_per_unit,omitempty"`
	// AudioSecondsPerChunk and SampleRate shape each audio chunk.
	AudioSecondsPerChunk float64 `json:"audio_seconds_per_chunk,omitempty"`
	SampleRate           int     `json:"sample_rate,omitempty"`
	// DenoiseSteps and StepTime shape an image or video stage (after TimeToFirstOutput).
	DenoiseSteps int      `json:"denoise_steps,omitempty"`
	StepTime     Duration `json:"step_time,omitempty"`
	// WaitForUpstream starts the stage when the previous one finishes instead
	// of at its first output (diffusion needs the whole prompt; audio streams).
	WaitForUpstream bool `json:"wait_for_upstream,omitempty"`
}

// Profile is a served model: its name in /v1/models and its pipeline.
type Profile struct {
	// Name selects the profile (--profile); Model is the id clients send.
	Name  string `json:"name"`
	Model string `json:"model,omitempty"`
	// Stages run in order; each feeds the next.
	Stages []Stage `json:"stages,omitempty"`
	// ReferenceInputChars is the speech input length that yields Units as
	// configured; longer inputs scale the stages' units up proportionally.
	ReferenceInputChars int `json:"reference_input_chars,omitempty"`
}

const ms = Duration(time.Millisecond)

// builtinProfiles are modelled on the real pipelines; the defaults keep one
// request well under a second so tests and the quickstart stay fast.
func builtinProfiles() []Profile {
	return []Profile{
		{Name: "qwen3-omni", Model: "Qwen/Qwen3-Omni-30B-A3B-Instruct", ReferenceInputChars: 120, Stages: []Stage{
			{Name: "thinker", Output: OutputText, FinalOutputType: "text", Units: 48, UnitsPerChunk: 1,
				TimeToFirstOutput: 80 * ms, TimePerUnit: 5 * ms},
			{Name: "talker", Output: OutputStream, FinalOutputType: "latent", Units: 30, UnitsPerChunk: 1,
				TimeToFirstOutput: 50 * ms, TimePerUnit: 8 * ms},
			{Name: "code2wav", Output: OutputAudio, FinalOutputType: "audio", Units: 5,
				TimeToFirstOutput: 30 * ms, TimePerUnit: 25 * ms, AudioSecondsPerChunk: 0.4, SampleRate: 24000},
		}},
		{Name: "bagel", Model: "ByteDance-Seed/BAGEL-7B-MoT", Stages: []Stage{
			{Name: "thinker", Output: OutputText, FinalOutputType: "text", Units: 16, UnitsPerChunk: 1,
				TimeToFirstOutput: 40 * ms, TimePerUnit: 4 * ms},
			{Name: "dit", Output: OutputImage, FinalOutputType: "image", WaitForUpstream: true,
				TimeToFirstOutput: 20 * ms, DenoiseSteps: 20, StepTime: 15 * ms},
		}},
		{Name: "hunyuan-image", Model: "tencent/HunyuanImage-3.0", Stages: []Stage{
			{Name: "AR", Output: OutputText, FinalOutputType: "text", Units: 24, UnitsPerChunk: 1,
				TimeToFirstOutput: 60 * ms, TimePerUnit: 5 * ms},
			{Name: "dit", Output: OutputImage, FinalOutputType: "image", WaitForUpstream: true,
				TimeToFirstOutput: 20 * ms, DenoiseSteps: 20, StepTime: 20 * ms},
		}},
		{Name: "tts", Model: "Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice", ReferenceInputChars: 60, Stages: []Stage{
			{Name: "talker", Output: OutputStream, FinalOutputType: "latent", Units: 25, UnitsPerChunk: 1,
				TimeToFirstOutput: 40 * ms, TimePerUnit: 6 * ms},
			{Name: "code2wav", Output: OutputAudio, FinalOutputType: "audio", Units: 5,
				TimeToFirstOutput: 20 * ms, TimePerUnit: 20 * ms, AudioSecondsPerChunk: 0.4, SampleRate: 24000},
		}},
		{Name: "wan-video", Model: "Wan-AI/Wan2.2-T2V-A14B-Diffusers", Stages: []Stage{
			{Name: "dit", Output: OutputVideo, FinalOutputType: "video",
				TimeToFirstOutput: 30 * ms, DenoiseSteps: 20, StepTime: 12 * ms},
		}},
	}
}

// ProfileNames lists the built-in profiles, in the order they are served.
func ProfileNames() []string {
	var names []string
	for _, p := range builtinProfiles() {
		names = append(names, p.Name)
	}
	return names
}

// BuiltinProfile returns a copy of the built-in profile name, or false.
func BuiltinProfile(name string) (Profile, bool) {
	for _, p := range builtinProfiles() {
		if p.Name == name {
			return p, true
		}
	}
	return Profile{}, false
}

// UnmarshalJSON lets a config override a built-in profile field by field:
// an entry named like a built-in starts from it, and its stages are matched
// by name, so {"name":"tts","stages":[{"name":"code2wav","time_per_unit":"40ms"}]}
// changes only that knob.
func (p *Profile) UnmarshalJSON(b []byte) error {
	var raw struct {
		Name                string            `json:"name"`
		Model               *string           `json:"model"`
		ReferenceInputChars *int              `json:"reference_input_chars"`
		Stages              []json.RawMessage `json:"stages"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if raw.Name == "" {
		return fmt.Errorf("profile: missing name")
	}
	base, _ := BuiltinProfile(raw.Name)
	base.Name = raw.Name
	if raw.Model != nil {
		base.Model = *raw.Model
	}
	if raw.ReferenceInputChars != nil {
		base.ReferenceInputChars = *raw.ReferenceInputChars
	}
	for _, sb := range raw.Stages {
		var name struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(sb, &name); err != nil {
			return fmt.Errorf("profile %s: %w", raw.Name, err)
		}
		i := base.stageIndex(name.Name)
		if i < 0 {
			base.Stages = append(base.Stages, Stage{})
			i = len(base.Stages) - 1
		}
		if err := json.Unmarshal(sb, &base.Stages[i]); err != nil {
			return fmt.Errorf("profile %s stage %s: %w", raw.Name, name.Name, err)
		}
	}
	*p = base
	return nil
}

func (p *Profile) stageIndex(name string) int {
	for i, s := range p.Stages {
		if s.Name == name {
			return i
		}
	}
	return -1
}

// validate fills defaults and rejects profiles the pipeline cannot run.
func (p *Profile) validate() error {
	if p.Model == "" {
		p.Model = p.Name
	}
	if len(p.Stages) == 0 {
		return fmt.Errorf("profile %s: no stages", p.Name)
	}
	if p.ReferenceInputChars <= 0 {
		p.ReferenceInputChars = 60
	}
	for i := range p.Stages {
		s := &p.Stages[i]
		switch s.Output {
		case OutputText, OutputStream, OutputAudio, OutputImage, OutputVideo:
		default:
			return fmt.Errorf("profile %s stage %s: output %q is not one of text, stream, audio, image, video", p.Name, s.Name, s.Output)
		}
		if s.FinalOutputType == "" {
			s.FinalOutputType = s.Output
		}
		s.Units = max(s.Units, 1)
		s.UnitsPerChunk = max(s.UnitsPerChunk, 1)
		if s.Output == OutputAudio {
			if s.SampleRate <= 0 {
				s.SampleRate = 24000
			}
			if s.AudioSecondsPerChunk <= 0 {
				s.AudioSecondsPerChunk = 0.4
			}
		}
		if s.diffusion() && s.DenoiseSteps <= 0 {
			s.DenoiseSteps = 20
		}
	}
	return nil
}

// diffusion reports a stage that denoises its one output (an image, a video) in steps.
func (s Stage) diffusion() bool { return s.Output == OutputImage || s.Output == OutputVideo }

// has reports the index of the first stage producing output kind, or -1.
func (p *Profile) has(output string) int {
	for i, s := range p.Stages {
		if s.Output == output {
			return i
		}
	}
	return -1
}

// modalities lists what the pipeline can show a client, in stage order.
func (p *Profile) modalities() []string {
	var out []string
	for _, s := range p.Stages {
		if s.Output != OutputStream && !contains(out, s.Output) {
			out = append(out, s.Output)
		}
	}
	return out
}

// describeProfiles is the "known profiles" part of an error message.
func describeProfiles(ps []Profile) string {
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
