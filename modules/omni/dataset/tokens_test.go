package dataset

import "testing"

func TestEstimateTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		want int
	}{
		{"", 0},
		{"  \n\t ", 0},
		{"the cat sat", 3},
		{"Hello, world!", 4},                // two words, two marks
		{"internationalization", 4},         // 20 letters: one token per started 6
		{"café naïve", 2},                   // accented letters stay in their word
		{"你好世界", 4},                         // one token a Han character
		{"GPU 80GB; p99=1.5s", 8},           // GPU 80GB ; p99 = 1 . 5s
		{"こんにちは world", 6},                  // five kana and a word
		{"emoji 🚀 here", 3},                 // a symbol counts one
		{"tab\tseparated\nlines\r\n", 4},    // separated (9 letters) is two
		{"x\u200by", 2},                     // an invisible format character splits words
		{"a" + string(rune(0x7f)) + "b", 2}, // DEL is not printable
	}
	for _, tt := range tests {
		if got := EstimateTokens(tt.text); got != tt.want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", tt.text, got, tt.want)
		}
	}
}
