package dataset

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// vocabulary holds common English words that GPT-2, cl100k, o200k, Llama 2/3 and Qwen
// tokenizers each encode as one token (with or without a leading space), so a prompt of
// n words is about n tokens. Words of at most 6 letters keep EstimateTokens exact too.
var vocabulary = strings.Fields(`the of and to in is was for on that with as by at from his he it an be are or her had
not but this which have one you were all she they there been has their more when who
will would so if no out up what about into them can only other new some could time these
two may first then do any like my now over such our man me even most made after also did
many before must back years where much your way well down should each just those people
how too little state good very make world still own see men work long get here both life
being under never day same know while last might us great old year off come since go
came right used take three house use during again place around small found part high
every next line water large often number away always young family until left give hand
city point light end open name head home show group run today among river school side
power money heart mind story body music plan field table paper face door form voice
leave green black white road real free ready dark child food fire plant color south
north east west early final human local major peace press ship sound space wind book
word game test song team rain snow tree blue gold star moon hill lake sea sky bird fish
horse stone glass bread milk salt sugar tea wine eye arm foot king queen club bank shop
town farm park`)

// Calibration says how many server tokens a random prompt of n vocabulary words makes:
// Overhead + PerWord·n. Overhead absorbs what the tokenizer adds to any text (BOS, a chat
// template), so random prompts are sized in the tokens the server will count.
type Calibration struct {
	Overhead float64
	PerWord  float64
}

// Tokenizer counts the tokens a server makes of text, typically by POSTing it to the
// server's /tokenize; it should tokenize the way requests are sent (same template).
type Tokenizer func(ctx context.Context, text string) (int, error)

// Probe sizes for Calibrate: two lengths give the line's slope and intercept.
const probeShort, probeLong = 64, 512

// Calibrate asks tok to count two random prompts and fits a Calibration to them.
func Calibrate(ctx context.Context, tok Tokenizer) (*Calibration, error) {
	r := newRand(0, streamProbe)
	short, err := tok(ctx, words(r, probeShort))
	if err != nil {
		return nil, fmt.Errorf("dataset: calibrate: %w", err)
	}
	long, err := tok(ctx, words(r, probeLong))
	if err != nil {
		return nil, fmt.Errorf("dataset: calibrate: %w", err)
	}
	per := float64(long-short) / (probeLong - probeShort)
	if per <= 0 {
		return nil, fmt.Errorf("dataset: calibrate: %d words made %d tokens and %d words %d: the tokenizer does not grow with the text", probeShort, short, probeLong, long)
	}
	return &Calibration{Overhead: float64(short) - per*probeShort, PerWord: per}, nil
}

// wordsFor is how many vocabulary words make a prompt of about tokens tokens; at least one.
func (c *Calibration) wordsFor(tokens int) int {
	if c == nil {
		return max(tokens, 1)
	}
	return max(int(math.Round((float64(tokens)-c.Overhead)/c.PerWord)), 1)
}

// promptLen is how many tokens a prompt of n vocabulary words makes.
func (c *Calibration) promptLen(n int) int {
	if c == nil {
		return n
	}
	return int(math.Round(c.Overhead + c.PerWord*float64(n)))
}

// prefixWords is how many vocabulary words make about tokens tokens inside a prompt (the
// prompt's overhead is counted once, by promptLen).
func (c *Calibration) prefixWords(tokens int) int {
	if c == nil || tokens == 0 {
		return tokens
	}
	return max(int(math.Round(float64(tokens)/c.PerWord)), 1)
}

// lengthRange is vLLM's integer-uniform range around a mean: [floor(L(1−r)), ceil(L(1+r))],
// at least lo.
func lengthRange(mean int, ratio float64, lo int) (int, int) {
	return max(int(math.Floor(float64(mean)*(1-ratio))), lo), max(int(math.Ceil(float64(mean)*(1+ratio))), lo)
}

// randomPrompts makes spec.NumPrompts text samples as vLLM's random dataset does: input and
// output lengths uniform in their ranges, independent for each request, from the seed,
// after a prefix of RandomPrefixLen tokens that every prompt shares.
func randomPrompts(spec Spec) ([]Sample, error) {
	if !(spec.RandomRangeRatio >= 0 && spec.RandomRangeRatio < 1) {
		return nil, fmt.Errorf("dataset: --random-range-ratio %v: want [0, 1)", spec.RandomRangeRatio)
	}
	if spec.RandomInputLen < 1 || spec.RandomOutputLen < 1 {
		return nil, fmt.Errorf("dataset: --random-input-len %d and --random-output-len %d: want at least 1", spec.RandomInputLen, spec.RandomOutputLen)
	}
	if spec.RandomPrefixLen < 0 {
		return nil, fmt.Errorf("dataset: --random-prefix-len %d: want at least 0", spec.RandomPrefixLen)
	}
	inLo, inHi := lengthRange(spec.RandomInputLen, spec.RandomRangeRatio, 1)
	outLo, outHi := lengthRange(spec.RandomOutputLen, spec.RandomRangeRatio, 1)
	lengths, text := newRand(spec.Seed, streamLengths), newRand(spec.Seed, streamWords)
	cal := spec.Calibration
	prefixN := cal.prefixWords(spec.RandomPrefixLen)
	prefix := words(newRand(spec.Seed, streamPrefix), prefixN)
	samples := make([]Sample, spec.NumPrompts)
	for i := range samples {
		in := inLo + lengths.IntN(inHi-inLo+1)
		out := outLo + lengths.IntN(outHi-outLo+1)
		n := max(cal.wordsFor(spec.RandomPrefixLen+in)-prefixN, 1)
		prompt := words(text, n)
		if prefixN > 0 {
			prompt = prefix + " " + prompt
		}
		samples[i] = Sample{Prompt: prompt, OutputTokens: out, PromptLen: cal.promptLen(prefixN + n)}
	}
	return samples, nil
}

func loadRandom(spec Spec) ([]Sample, error) {
	if spec.Path != "" {
		return nil, fmt.Errorf("dataset: --dataset-path %q: the %s dataset reads no file", spec.Path, spec.Name)
	}
	return randomPrompts(spec)
}

// words joins n random vocabulary words. Independent draws make every prompt distinct
// from its first words on, so a server's prefix cache cannot serve one from another.
func words(r *rand.Rand, n int) string {
	var b strings.Builder
	writeWords(&b, r, n)
	return b.String()
}

// writeWords appends n random vocabulary words to b, after a space if b has text.
func writeWords(b *strings.Builder, r *rand.Rand, n int) {
	b.Grow(n * 6)
	for range n {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(vocabulary[r.IntN(len(vocabulary))])
	}
}
