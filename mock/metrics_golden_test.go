package mock

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the rendered output")

// replay stamps pl's outputs before steps[upTo] at their planned times, as
// run does when nothing runs late, and leaves run at steps[upTo].
func replay(pl *pipeline, upTo int) {
	for i, st := range pl.steps[:upTo] {
		pl.next.Store(int32(i))
		pl.stamp(st, pl.accept.Add(st.at))
	}
	pl.next.Store(int32(upTo))
}

// TestMetricsPageGolden renders the page from a fixed state: five requests
// replayed on their plans (a chat with text and audio, one cut by
// max_tokens, an image chat, a speech, one the engine failed halfway) and a
// speech still in flight at its fourth output. No jitter and no sleeps, so
// every figure is the plan's.
func TestMetricsPageGolden(t *testing.T) {
	t.Parallel()
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	profile := func(name string) *Profile {
		for i := range s.profiles {
			if s.profiles[i].Name == name {
				return &s.profiles[i]
			}
		}
		t.Fatalf("no profile %s", name)
		return nil
	}
	qwen, bagel, tts := profile("qwen3-omni"), profile("bagel"), profile("tts")
	chat := func(p *Profile, stages int, visible []bool, maxTokens int, finish string) *pipeline {
		st := p.Stages[:stages]
		return s.newPipeline(pipelineInput{profile: p, stages: st, visible: visible, units: stageUnits(st, 1, maxTokens),
			images: 2, pixels: 256, tokensIn: 12, finish: finish})
	}
	finish := func(pl *pipeline, err error) {
		replay(pl, pl.lastShown+1)
		pl.done(err)
	}
	finish(chat(qwen, 3, []bool{true, false, true}, 0, "stop"), nil)
	finish(chat(qwen, 1, []bool{true}, 4, "length"), nil)
	finish(chat(bagel, 2, []bool{false, true}, 0, "stop"), nil)
	speech, _ := s.speechPipeline(tts, "Hello there, this is the golden request.", nil, nil)
	finish(speech, nil)
	failed := chat(qwen, 3, []bool{true, false, true}, 0, "stop")
	replay(failed, failed.lastShown/2)
	failed.done(errEngineFailed)
	live, _ := s.speechPipeline(tts, "Still speaking.", nil, nil)
	replay(live, 3)

	var b bytes.Buffer
	s.writeMetrics(&b, live.accept.Add(live.steps[3].at))
	if _, err := parseExposition(bytes.NewReader(b.Bytes())); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "metrics.golden")
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestMetricsPageGolden -update)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("page differs from %s (rerun with -update if intended):\n%s", path, lineDiff(string(want), b.String()))
	}
}

// lineDiff shows the first lines that differ.
func lineDiff(want, got string) string {
	w, g := bytes.Split([]byte(want), []byte("\n")), bytes.Split([]byte(got), []byte("\n"))
	var out bytes.Buffer
	for i := 0; i < max(len(w), len(g)) && out.Len() < 2000; i++ {
		var wl, gl []byte
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if !bytes.Equal(wl, gl) {
			out.WriteString("- " + string(wl) + "\n+ " + string(gl) + "\n")
		}
	}
	return out.String()
}
