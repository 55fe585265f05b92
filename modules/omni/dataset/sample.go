package dataset

import (
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"sync"
	"time"
)

// Sample is what one benchmark request needs. Samples belong to their Dataset and are
// shared by every VU: read them, never modify them.
type Sample struct {
	// Prompt is the user text. Empty only when Messages carries the whole conversation.
	Prompt string
	// Messages, when set, is an OpenAI chat `messages` array sent as is instead of one
	// user message built from Prompt, Images and Audio.
	Messages json.RawMessage
	// OutputTokens is the expected output length (max_tokens, with --ignore-eos the exact
	// length); 0 leaves it to the server.
	OutputTokens int
	// PromptLen is the prompt's length in tokens as the client estimates it
	// (EstimateTokens, or the server-calibrated count for random prompts).
	PromptLen int
	Images    []*Media
	Audio     []*Media
	// Extra holds the fields of a custom line that omnik does not interpret, as one JSON
	// object; nil when there are none.
	Extra json.RawMessage
}

// Media is one image or audio input: inline bytes (Data) or a remote URL. Media values
// are shared between samples that name the same file; never modify them.
type Media struct {
	MIME string // "image/png", "audio/wav" …; may be empty for a URL
	Data []byte // nil for URL media
	URL  string // http(s) URL; empty for inline media
	// Width and Height of an image, when its format is known (PNG, JPEG, GIF).
	Width, Height int
	// SampleRate, Channels and Duration of a WAV; zero for other audio.
	SampleRate, Channels int
	Duration             time.Duration

	once    sync.Once
	dataURL string
}

// Size is the number of inline bytes (0 for URL media).
func (m *Media) Size() int { return len(m.Data) }

// DataURL is what an OpenAI request's `image_url.url` / `audio_url.url` takes: the URL
// itself, or the bytes as a base64 data URL. The encoding is done once and kept, because
// every VU sending this media would otherwise re-encode megabytes per request.
func (m *Media) DataURL() string {
	if m.URL != "" {
		return m.URL
	}
	m.once.Do(func() {
		m.dataURL = "data:" + m.MIME + ";base64," + base64.StdEncoding.EncodeToString(m.Data)
	})
	return m.dataURL
}

// Dataset is a loaded, immutable list of samples, safe for concurrent use.
type Dataset struct {
	name    string
	samples []Sample
}

// Name is the dataset kind it was loaded as ("random", "sharegpt" …).
func (d *Dataset) Name() string { return d.name }

// Len is the number of samples.
func (d *Dataset) Len() int { return len(d.samples) }

// At returns sample i, 0 ≤ i < Len(); the pointer is shared, not a copy.
func (d *Dataset) At(i int) *Sample { return &d.samples[i] }

// Sample returns the indices of n requests for a seed, the request order of a run: a
// seeded shuffle of all samples, then further shuffles while n exceeds Len. vLLM shuffles
// once and oversamples with random choices; whole shuffles use every entry equally.
// The same (n, seed) always gives the same order.
func (d *Dataset) Sample(n int, seed int64) []int {
	if n <= 0 || len(d.samples) == 0 {
		return nil
	}
	r := newRand(seed, streamOrder)
	out := make([]int, 0, n)
	for len(out) < n {
		perm := r.Perm(len(d.samples))
		out = append(out, perm[:min(len(perm), n-len(out))]...)
	}
	return out
}

// InOrder returns the indices of n requests in the dataset's own order, from the start
// again while n exceeds Len: vLLM's --disable-shuffle.
func (d *Dataset) InOrder(n int) []int {
	if n <= 0 || len(d.samples) == 0 {
		return nil
	}
	out := make([]int, n)
	for i := range out {
		out[i] = i % len(d.samples)
	}
	return out
}

// Streams of the seeded generator: each use draws from its own stream, so adding draws to
// one (say, image pixels) never shifts another (prompt lengths) for the same seed.
const (
	streamOrder uint64 = iota + 1
	streamLengths
	streamWords
	streamItems
	streamMedia
	streamProbe
	streamPrefix
	streamBlock
	streamBlockTail
)

func newRand(seed int64, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), stream))
}
