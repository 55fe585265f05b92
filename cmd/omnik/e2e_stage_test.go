package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// servingBlocks is the Serving (and Stage) blocks of a summary: from the Serving title
// to the closing rule.
func servingBlocks(t *testing.T, out string) string {
	t.Helper()
	start := strings.Index(out, "============ Serving Benchmark Result ============")
	rule := "\n" + strings.Repeat("=", 50) + "\n"
	end := strings.Index(out[max(start, 0):], rule)
	if start < 0 || end < 0 {
		t.Fatalf("no Serving block in\n%s", out)
	}
	return out[start : start+end+len(rule)]
}

// omnik bench --print-stage against the simulator: speech switches to SSE and gets its
// stage metrics, every endpoint's profile prints latest upstream's Peak Memory and Stage
// Durations rows, the Stage section ends with the stream-edge hand-offs, and omnik report
// prints the same blocks from the record file.
func TestBenchStageMetricsEndToEnd(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		endpoint, model string
		want, miss      []string
	}{
		{"/v1/audio/speech", "Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice",
			[]string{"Mean Talker Gen (ms):", "Stage 1 (code2wav)", "---------Edge 0->1:0 (talker -> code2wav)---------\nMean HANDOFF (ms):",
				"================== Text Result ===================\nTotal input tokens:"},
			// Text Result is its input tokens alone: codec tokens are no text.
			[]string{"Total generated tokens:", "Image Result"}},
		{"/v1/chat/completions", "Qwen/Qwen3-Omni-30B-A3B-Instruct",
			[]string{"Mean Thinker Gen (ms):", "Edge 0->1:0 (thinker -> talker)", "Edge 1->2:0 (talker -> code2wav)", "Total generated tokens:"}, nil},
	} {
		t.Run(strings.ReplaceAll(tc.endpoint, "/", "_"), func(t *testing.T) {
			t.Parallel()
			srv := startBenchServer(t)
			dir := t.TempDir()
			file := filepath.Join(dir, "run.ndjson")
			r := runOmnik(t, dir, nil, "bench", "-q", "--host", srv.host, "--port", srv.port, "--endpoint", tc.endpoint,
				"--model", tc.model, "--num-prompts", "4", "--random-input-len", "8", "--random-output-len", "4",
				"--max-concurrency", "2", "--print-stage", "--out", "json="+file)
			blocks := []string{"-------------------Peak Memory--------------------\nMean PEAK_MEMORY_MB (MB):",
				"---------------- Stage Durations -----------------\n", "============== Stream Edge Hand-off ==============\n"}
			expect{code: 0, stdout: append(blocks, tc.want...), notStdout: tc.miss}.check(t, r)
			if tc.endpoint == "/v1/audio/speech" {
				for _, p := range srv.posts() {
					if !strings.Contains(string(p.body), `"stream_format":"sse"`) {
						t.Errorf("speech with --print-stage sent %s", p.body)
					}
				}
			}
			again := runOmnik(t, dir, nil, "report", "--no-color", file)
			expect{code: 0}.check(t, again)
			if live, reread := servingBlocks(t, r.stdout), servingBlocks(t, again.stdout); live != reread {
				t.Errorf("omnik report printed other blocks:\n%s\nlive:\n%s", reread, live)
			}
		})
	}
}
