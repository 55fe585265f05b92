package dataset

import (
	"errors"
	"fmt"
)

// Names of the datasets Load knows, as `--dataset-name` spells them.
const (
	Random   = "random"
	RandomMM = "random-mm"
	ShareGPT = "sharegpt"
	Custom   = "custom"
)

// Defaults of `vllm bench serve` for the flags Spec mirrors.
const (
	DefaultNumPrompts      = 1000
	DefaultRandomInputLen  = 1024
	DefaultRandomOutputLen = 128
	DefaultCustomOutputLen = 256
)

// Spec mirrors the dataset flags of `vllm bench serve`. Zero values take vLLM's defaults,
// except RandomRangeRatio and Seed whose defaults are zero.
type Spec struct {
	Name string // --dataset-name; "" means random
	Path string // --dataset-path (sharegpt, custom)
	// NumPrompts is how many random prompts to generate (--num-prompts). File datasets load
	// every usable entry; a run then takes Dataset.Sample(NumPrompts, Seed), or
	// Dataset.InOrder(NumPrompts) with DisableShuffle.
	NumPrompts       int
	RandomInputLen   int     // --random-input-len, in tokens
	RandomOutputLen  int     // --random-output-len, in tokens
	RandomRangeRatio float64 // --random-range-ratio, in [0, 1)
	// RandomPrefixLen (--random-prefix-len) tokens of the same words start every random
	// prompt, before its RandomInputLen tokens.
	RandomPrefixLen int
	Seed            int64 // --seed
	// SharegptOutputLen (--sharegpt-output-len) replaces every reply's length; 0 keeps them.
	SharegptOutputLen int
	// CustomOutputLen is the output length of custom lines that have no output_tokens.
	CustomOutputLen int
	// CustomOutputLenOverride (--custom-output-len, unless -1) replaces every custom line's
	// output_tokens, as vLLM does; 0 keeps them.
	CustomOutputLenOverride int
	// DisableShuffle (--disable-shuffle) sends the samples in file order instead of a
	// seeded shuffle.
	DisableShuffle bool
	// Calibration, from Calibrate, sizes random prompts in the server's tokens.
	Calibration *Calibration
	// MM configures random-mm's images and audio.
	MM MMSpec
}

// Load builds the dataset a Spec names. Every error means the run must not start; file
// problems are *Error values naming the file, line and reason.
func Load(spec Spec) (*Dataset, error) {
	spec = spec.withDefaults()
	if spec.NumPrompts < 0 {
		return nil, fmt.Errorf("dataset: --num-prompts %d: want at least 1", spec.NumPrompts)
	}
	var (
		samples []Sample
		err     error
	)
	switch spec.Name {
	case Random:
		samples, err = loadRandom(spec)
	case RandomMM:
		samples, err = loadRandomMM(spec)
	case ShareGPT:
		samples, err = loadShareGPT(spec)
	case Custom:
		samples, err = loadCustom(spec)
	default:
		return nil, fmt.Errorf("dataset: --dataset-name %q: want one of %s, %s, %s, %s", spec.Name, Random, RandomMM, ShareGPT, Custom)
	}
	if err != nil {
		return nil, err
	}
	return &Dataset{name: spec.Name, samples: samples}, nil
}

// errNoPath is returned when a file dataset has no --dataset-path.
var errNoPath = errors.New("dataset: --dataset-path is required")

func (s Spec) withDefaults() Spec {
	if s.Name == "" {
		s.Name = Random
	}
	if s.NumPrompts == 0 {
		s.NumPrompts = DefaultNumPrompts
	}
	if s.RandomInputLen == 0 {
		s.RandomInputLen = DefaultRandomInputLen
	}
	if s.RandomOutputLen == 0 {
		s.RandomOutputLen = DefaultRandomOutputLen
	}
	if s.CustomOutputLen == 0 {
		s.CustomOutputLen = DefaultCustomOutputLen
	}
	s.MM = s.MM.withDefaults()
	return s
}
