package omni

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/omnik-dev/omnik/js"
	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/mock"
)

type sink struct {
	mu sync.Mutex
	s  []metrics.Sample
}

func (k *sink) Collect(b []metrics.Sample) { k.mu.Lock(); k.s = append(k.s, b...); k.mu.Unlock() }

func (k *sink) values(name string, tag, want string) []float64 {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []float64
	for _, s := range k.s {
		if s.Metric.Name != name {
			continue
		}
		if v, _ := s.Tags.Get(tag); tag != "" && v != want {
			continue
		}
		out = append(out, s.Value)
	}
	return out
}

// runScript runs one iteration of src with the omni module pointed at the simulator.
func runScript(t *testing.T, src string, mockOpts ...mock.Option) (*sink, *Module, *js.VU) {
	t.Helper()
	srv, err := mock.New(append([]mock.Option{mock.WithSpeed(20)}, mockOpts...)...)
	if err != nil {
		t.Fatal(err)
	}
	url, err := srv.StartLoopback()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	reg := metrics.NewRegistry()
	mod := New(reg)
	mod.Configure(Config{BaseURL: url})
	t.Cleanup(mod.Close)
	path := filepath.Join(t.TempDir(), "s.js")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	k := &sink{}
	r, err := js.Load(path, js.WithRegistry(reg), js.WithCollector(k), js.WithModule("omni", mod.JS()))
	if err != nil {
		t.Fatal(err)
	}
	vu, err := r.NewVU(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := vu.RunIteration(context.Background(), &js.Iteration{Scenario: &js.Scenario{Name: "s"}}); err != nil {
		t.Fatalf("iteration: %s", js.Exception(err))
	}
	return k, mod, vu
}

func TestChatAgainstSimulatorRecordsEveryMetric(t *testing.T) {
	t.Parallel()
	k, mod, vu := runScript(t, `import omni from 'omni';
export default async function () {
  const [a, b] = await Promise.all([
    omni.chat({ model: 'Qwen/Qwen3-Omni-30B-A3B-Instruct', messages: [{ role: 'user', content: 'hi' }], max_tokens: 16 }),
    omni.chat({ model: 'Qwen/Qwen3-Omni-30B-A3B-Instruct', messages: [{ role: 'user', content: 'yo' }], max_tokens: 16 }, { tags: { kind: 'second' } }),
  ]);
  globalThis.r = a; globalThis.b = b;
}`)
	r := vu.Runtime().Get("r").ToObject(vu.Runtime())
	if !r.Get("ok").ToBoolean() || r.Get("status").ToInteger() != 200 {
		t.Fatalf("result = %v", r.Export())
	}
	if r.Get("text").String() == "" {
		t.Error("no text")
	}
	timings := r.Get("timings").ToObject(vu.Runtime())
	ttft, e2el := timings.Get("ttft").ToFloat(), timings.Get("e2el").ToFloat()
	if !(ttft > 0 && ttft < e2el) {
		t.Errorf("ttft %v, e2el %v: want 0 < ttft < e2el", ttft, e2el)
	}
	if d := r.Get("audio").ToObject(vu.Runtime()).Get("duration").ToFloat(); d <= 0 {
		t.Errorf("audio duration = %v", d)
	}
	if stages := r.Get("stages").ToObject(vu.Runtime()).Keys(); len(stages) != 3 {
		t.Errorf("stages = %v, want thinker, talker, code2wav", stages)
	}
	if n := len(k.values("requests", "", "")); n != 2 {
		t.Errorf("requests samples = %d, want 2", n)
	}
	if n := len(k.values("ttft", "modality", "text")); n != 2 {
		t.Errorf("ttft{modality:text} samples = %d", n)
	}
	if n := len(k.values("e2el", "kind", "second")); n != 1 {
		t.Errorf("user tag missing on e2el: %d samples", n)
	}
	if n := len(k.values("stage_gen_time", "stage", "thinker")); n != 2 {
		t.Errorf("stage_gen_time{stage:thinker} samples = %d", n)
	}
	var text strings.Builder
	if err := mod.Section(SectionOptions{}).Text(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Serving Benchmark Result", "Successful requests:                     2", "Stage Benchmark Result", "Stage 0 (thinker)"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, text.String())
		}
	}
}

func TestFailuresResolveWithKindAndAreCounted(t *testing.T) {
	t.Parallel()
	k, _, vu := runScript(t, `import omni from 'omni';
export default async function () {
  globalThis.r = await omni.chat({ messages: [{ role: 'user', content: 'hi' }] },
    { headers: { 'X-Omnik-Mock-Fault': 'http_503' } });
}`)
	r := vu.Runtime().Get("r").ToObject(vu.Runtime())
	if r.Get("ok").ToBoolean() || r.Get("status").ToInteger() != 503 {
		t.Fatalf("result = %v", r.Export())
	}
	if kind := r.Get("error").ToObject(vu.Runtime()).Get("kind").String(); kind != "http_status" {
		t.Errorf("error kind = %q", kind)
	}
	failed := k.values("requests_failed", "error", "http_status")
	if len(failed) != 1 || failed[0] != 1 {
		t.Errorf("requests_failed{error:http_status} = %v", failed)
	}
	if n := len(k.values("e2el", "", "")); n != 0 {
		t.Errorf("a failed request gave %d e2el samples", n)
	}
}

func TestSpeechAndImagesAgainstSimulator(t *testing.T) {
	t.Parallel()
	_, _, vu := runScript(t, `import { audio, images } from 'omni';
export default async function () {
  const s = await audio.speech({ model: 'Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice', input: 'hello there', voice: 'vivian' });
  const i = await images.generate({ model: 'ByteDance-Seed/BAGEL-7B-MoT', prompt: 'a cat', size: '64x48' });
  globalThis.ok = s.ok && s.audio.duration > 0 && s.timings.audioTtfp > 0 &&
    i.ok && i.images.count === 1 && i.images.width === 64 && i.images.height === 48
    ? 'ok' : JSON.stringify([s, i.images, i.error]);
}`)
	if got := vu.Runtime().Get("ok").String(); got != "ok" {
		t.Errorf("speech/images: %s", got)
	}
}

func TestAPIKeyIsSentButNeverShown(t *testing.T) {
	t.Parallel()
	c := Config{APIKey: "sk-secret", BaseURL: "http://x"}
	if got := c.header(nil).Get("Authorization"); got != "Bearer sk-secret" {
		t.Errorf("Authorization = %q", got)
	}
	if strings.Contains(c.String(), "sk-secret") {
		t.Errorf("Config.String() shows the key: %s", c)
	}
}
