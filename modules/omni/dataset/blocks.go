package dataset

import "strings"

// BlockTokens is the size of the token blocks a Mooncake trace's hash_ids name.
const BlockTokens = 512

// BlockPrompt is a synthetic prompt of inputLen tokens for a trace entry: the k-th block
// of BlockTokens tokens is the words that ids[k] always gives, so entries sharing
// leading ids share a prefix a server's cache can reuse, as in the traced system. The
// last block is cut short; tokens beyond the ids' blocks come from seed, so entries
// without ids share nothing. A vocabulary word is one token (see vocabulary), so the
// prompt is inputLen tokens before the chat template's few.
func BlockPrompt(ids []int64, inputLen int, seed int64) string {
	var b strings.Builder
	left := inputLen
	for _, id := range ids {
		if left <= 0 {
			break
		}
		n := min(left, BlockTokens)
		writeWords(&b, newRand(id, streamBlock), n)
		left -= n
	}
	if left > 0 {
		writeWords(&b, newRand(seed, streamBlockTail), left)
	}
	return b.String()
}
