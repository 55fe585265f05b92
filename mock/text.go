package mock

import (
	"math/rand/v2"
	"strings"
)

var vocabulary = strings.Fields(`the a model stage audio signal thinker talker voice image light river
stream token frame pixel quiet bright simple clear warm small large early late first next every
listens speaks draws paints hears sees writes answers waits moves turns follows carries brings
slowly softly gently quickly calmly together again always here there today now then also`)

// words returns n deterministic tokens: the first capitalised, the rest with
// a leading space, and a period every dozen or so, like detokenised text.
func words(rng *rand.Rand, n int) []string {
	out := make([]string, n)
	sentence := 0
	for i := range out {
		w := vocabulary[rng.IntN(len(vocabulary))]
		if sentence == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		if i > 0 {
			w = " " + w
		}
		sentence++
		if sentence >= 8+rng.IntN(8) || i == n-1 {
			w += "."
			sentence = 0
		}
		out[i] = w
	}
	return out
}

// estimateTokens approximates a tokenizer: about 4/3 tokens per word.
func estimateTokens(text string) int {
	return (len(strings.Fields(text))*4 + 2) / 3
}
