package dataset

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestVocabularyWordsAreOneTokenEach(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, w := range vocabulary {
		if seen[w] {
			t.Errorf("%q twice", w)
		}
		seen[w] = true
		if EstimateTokens(w) != 1 {
			t.Errorf("%q estimates %d tokens", w, EstimateTokens(w))
		}
	}
	if len(vocabulary) < 200 {
		t.Errorf("vocabulary has %d words; prompts repeat too much below 200", len(vocabulary))
	}
}

func TestRandomLengthsFollowVLLMRanges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		in, out       int
		ratio         float64
		inLo, inHi    int
		outLo, outHi  int
		meanIn, meanO float64
	}{
		{"fixed lengths", 100, 20, 0, 100, 100, 20, 20, 100, 20},
		{"ratio 0.5", 100, 20, 0.5, 50, 150, 10, 30, 100, 20},
		{"output floor 1", 64, 1, 0.9, 6, 122, 1, 2, 64, 1.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := Load(Spec{Name: Random, NumPrompts: 2000, RandomInputLen: tt.in, RandomOutputLen: tt.out, RandomRangeRatio: tt.ratio, Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			var sumIn, sumOut float64
			for i := range d.Len() {
				s := d.At(i)
				words := len(strings.Fields(s.Prompt))
				if s.PromptLen != words || EstimateTokens(s.Prompt) != words {
					t.Fatalf("sample %d: prompt_len %d, %d words, estimate %d", i, s.PromptLen, words, EstimateTokens(s.Prompt))
				}
				if s.PromptLen < tt.inLo || s.PromptLen > tt.inHi || s.OutputTokens < tt.outLo || s.OutputTokens > tt.outHi {
					t.Fatalf("sample %d: in %d out %d outside [%d,%d] [%d,%d]", i, s.PromptLen, s.OutputTokens, tt.inLo, tt.inHi, tt.outLo, tt.outHi)
				}
				sumIn += float64(s.PromptLen)
				sumOut += float64(s.OutputTokens)
			}
			n := float64(d.Len())
			// 2000 uniform draws: the mean is within 3% of the range's middle with margin.
			if math.Abs(sumIn/n-tt.meanIn) > 0.03*tt.meanIn || math.Abs(sumOut/n-tt.meanO) > 0.03*tt.meanO+0.05 {
				t.Errorf("mean input %.2f output %.2f, want about %v and %v", sumIn/n, sumOut/n, tt.meanIn, tt.meanO)
			}
		})
	}
}

func TestRandomIsDeterministicForASeed(t *testing.T) {
	t.Parallel()
	spec := Spec{Name: Random, NumPrompts: 50, RandomInputLen: 32, RandomRangeRatio: 0.5, Seed: 42}
	a, _ := Load(spec)
	b, _ := Load(spec)
	spec.Seed = 43
	c, _ := Load(spec)
	distinct := map[string]bool{}
	for i := range a.Len() {
		if a.At(i).Prompt != b.At(i).Prompt || a.At(i).OutputTokens != b.At(i).OutputTokens {
			t.Fatalf("sample %d differs between two loads with seed 42", i)
		}
		distinct[a.At(i).Prompt] = true
	}
	if a.At(0).Prompt == c.At(0).Prompt {
		t.Error("seeds 42 and 43 give the same first prompt")
	}
	if len(distinct) != a.Len() {
		t.Errorf("%d distinct prompts of %d", len(distinct), a.Len())
	}
}

func TestRandomRejectsBadSpecs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		spec Spec
		want string
	}{
		{"ratio 1", Spec{RandomRangeRatio: 1}, "--random-range-ratio 1: want [0, 1)"},
		{"negative ratio", Spec{RandomRangeRatio: -0.1}, "want [0, 1)"},
		{"negative input", Spec{RandomInputLen: -5}, "--random-input-len -5"},
		{"path given", Spec{Path: "x.json"}, `--dataset-path "x.json": the random dataset reads no file`},
		{"unknown name", Spec{Name: "sonnet"}, `--dataset-name "sonnet"`},
		{"file without path", Spec{Name: Custom}, "--dataset-path is required for the custom dataset"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Load(tt.spec)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// fakeTokenizer counts like a server whose tokenizer makes perWord tokens of each word and
// adds overhead (BOS, template) to every text.
func fakeTokenizer(overhead, perWord int) Tokenizer {
	return func(ctx context.Context, text string) (int, error) {
		return overhead + perWord*len(strings.Fields(text)), ctx.Err()
	}
}

func TestCalibrationSizesPromptsInServerTokens(t *testing.T) {
	t.Parallel()
	tok := fakeTokenizer(7, 2)
	cal, err := Calibrate(context.Background(), tok)
	if err != nil {
		t.Fatal(err)
	}
	if cal.Overhead != 7 || cal.PerWord != 2 {
		t.Fatalf("calibration = %+v, want overhead 7, 2 a word", *cal)
	}
	d, err := Load(Spec{NumPrompts: 200, RandomInputLen: 301, RandomRangeRatio: 0.2, Calibration: cal})
	if err != nil {
		t.Fatal(err)
	}
	for i := range d.Len() {
		s := d.At(i)
		got, _ := tok(context.Background(), s.Prompt)
		if got != s.PromptLen {
			t.Fatalf("sample %d: server counts %d, prompt_len %d", i, got, s.PromptLen)
		}
		// A 2-token word cannot hit an even target exactly: within one word.
		if s.PromptLen < 240-2 || s.PromptLen > 362+2 {
			t.Fatalf("sample %d: %d tokens outside [240, 362] ± 1 word", i, s.PromptLen)
		}
	}
}

func TestCalibrateReportsTokenizerFailures(t *testing.T) {
	t.Parallel()
	boom := errors.New("connection refused")
	_, err := Calibrate(context.Background(), func(context.Context, string) (int, error) { return 0, boom })
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want it to wrap %v", err, boom)
	}
	_, err = Calibrate(context.Background(), fakeTokenizer(5, 0))
	if err == nil || !strings.Contains(err.Error(), "does not grow") {
		t.Errorf("err = %v for a constant tokenizer", err)
	}
}

// --random-prefix-len: every prompt starts with the same prefix of that many tokens, which
// its prompt length counts; without calibration a word is a token.
func TestRandomPrefixIsSharedAndCounted(t *testing.T) {
	t.Parallel()
	for _, cal := range []*Calibration{nil, {Overhead: 3, PerWord: 2}} {
		d, err := Load(Spec{Name: Random, NumPrompts: 50, RandomInputLen: 20, RandomOutputLen: 2, RandomRangeRatio: 0.5,
			RandomPrefixLen: 10, Seed: 3, Calibration: cal})
		if err != nil {
			t.Fatal(err)
		}
		prefixWords := cal.prefixWords(10)
		prefix := strings.Fields(d.At(0).Prompt)[:prefixWords]
		for i := range d.Len() {
			s := d.At(i)
			words := strings.Fields(s.Prompt)
			if !slices.Equal(words[:prefixWords], prefix) {
				t.Fatalf("calibration %+v, sample %d: prefix %v, want %v", cal, i, words[:prefixWords], prefix)
			}
			if want := cal.promptLen(len(words)); s.PromptLen != want {
				t.Errorf("calibration %+v, sample %d: prompt_len %d, want %d", cal, i, s.PromptLen, want)
			}
			// 10 prefix tokens and 20 ± 50% others, give or take a word.
			if lo, hi := 10+10-2, 10+30+2; s.PromptLen < lo || s.PromptLen > hi {
				t.Errorf("calibration %+v, sample %d: prompt_len %d outside [%d, %d]", cal, i, s.PromptLen, lo, hi)
			}
		}
	}
	if _, err := Load(Spec{Name: Random, RandomPrefixLen: -1}); err == nil || !strings.Contains(err.Error(), "--random-prefix-len -1") {
		t.Errorf("prefix -1: %v", err)
	}
}
