package dataset

import (
	"strings"
	"testing"
)

// Blocks named by the same hash id are the same words wherever they appear, so
// prompts sharing leading ids share that prefix and no more; lengths are exact in words.
func TestBlockPromptSharesPrefixesByHashID(t *testing.T) {
	t.Parallel()
	a := strings.Fields(BlockPrompt([]int64{0, 1, 2}, 1200, 1))
	b := strings.Fields(BlockPrompt([]int64{0, 1, 7, 8}, 1800, 2))
	c := strings.Fields(BlockPrompt([]int64{3}, 700, 3))
	if len(a) != 1200 || len(b) != 1800 || len(c) != 700 {
		t.Fatalf("lengths %d, %d, %d; want 1200, 1800, 700", len(a), len(b), len(c))
	}
	common := 0
	for common < len(a) && common < len(b) && a[common] == b[common] {
		common++
	}
	// Two shared blocks, then the third differs within a few words.
	if common < 2*BlockTokens || common > 2*BlockTokens+4 {
		t.Errorf("a and b share %d leading words, want the 1024 of blocks 0 and 1", common)
	}
	if strings.Join(a[:BlockTokens], " ") == strings.Join(c[:BlockTokens], " ") {
		t.Error("blocks 0 and 3 are the same words")
	}
	// A partial block is the start of the full one.
	short := BlockPrompt([]int64{0}, 100, 9)
	if !strings.HasPrefix(strings.Join(a, " "), short+" ") {
		t.Error("a partial block 0 is not the start of block 0")
	}
	// Without ids the words come from the seed.
	if one := BlockPrompt(nil, 50, 1); one == BlockPrompt(nil, 50, 2) || one != BlockPrompt(nil, 50, 1) {
		t.Error("the tail is not a function of its seed")
	}
	if got := EstimateTokens(strings.Join(a, " ")); got != 1200 {
		t.Errorf("EstimateTokens = %d, want 1200", got)
	}
}
