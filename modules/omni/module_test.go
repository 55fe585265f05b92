package omni

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/js"
	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/mock"
	"github.com/omnik-dev/omnik/modules/omni/record"
	"github.com/omnik-dev/omnik/modules/omni/report"
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

// scriptEnv is what a test script runs with beyond its source: files beside it, the
// client configuration (BaseURL is the simulator's unless set) and where request records
// go.
type scriptEnv struct {
	files   map[string][]byte
	cfg     Config
	records func(*record.Record)
	mock    []mock.Option
	// interruptAfter, when set, cuts the iteration off after that long.
	interruptAfter time.Duration
	section        report.SectionOptions
}

// runScript runs one iteration of src with the omni module pointed at the simulator.
func runScript(t *testing.T, src string, mockOpts ...mock.Option) (*sink, *report.Section, *js.VU) {
	t.Helper()
	return runScriptIn(t, scriptEnv{mock: mockOpts}, src)
}

// runScriptIn runs src as runScript does: the module's records feed the metrics view
// (the returned sink), the Serving/Stage section and env.records.
func runScriptIn(t *testing.T, env scriptEnv, src string) (*sink, *report.Section, *js.VU) {
	t.Helper()
	url := env.cfg.BaseURL
	if url == "" {
		url = startSim(t, append([]mock.Option{mock.WithSpeed(20)}, env.mock...)...)
	}
	reg := metrics.NewRegistry()
	k := &sink{}
	sec := report.NewSection(env.section)
	subs := []record.Subscriber{RegisterMetrics(reg).View(k), sec}
	if env.records != nil {
		subs = append(subs, record.SubscriberFunc(env.records))
	}
	mod := New(WithStream(record.NewStream(subs...), time.Now()))
	env.cfg.BaseURL = url
	if err := mod.Configure(env.cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mod.Close)
	dir := t.TempDir()
	for name, data := range env.files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "s.js")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := js.Load(path, js.WithRegistry(reg), js.WithModule("omni", mod.JS()))
	if err != nil {
		t.Fatal(err)
	}
	vu, err := r.NewVU(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if env.interruptAfter > 0 {
		// Cancelled, not timed out: the engine interrupts iterations by cancelling.
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer time.AfterFunc(env.interruptAfter, cancel).Stop()
	}
	if err := vu.RunIteration(ctx, &js.Iteration{Scenario: &js.Scenario{Name: "s"}}); err != nil && ctx.Err() == nil {
		t.Fatalf("iteration: %s", js.Exception(err))
	}
	mod.Drain(context.Background())
	return k, sec, vu
}

// A call cut off by the end of its iteration never gets its loop callback, yet it is
// counted: in the metrics as in the Serving block, as interrupted, never as a failure
// (the server did nothing wrong, so requests_failed and its thresholds do not see it).
func TestInterruptedCallIsStillCounted(t *testing.T) {
	t.Parallel()
	env := scriptEnv{interruptAfter: 300 * time.Millisecond}
	k, sec, _ := runScriptIn(t, env, `import omni from 'omni';
export default async function () {
  await omni.chat({ messages: [{ role: 'user', content: 'hi' }] },
    { headers: { 'X-Omnik-Mock-Fault': 'stall,after=1,delay=10s' } });
}`)
	if n := len(k.values("requests_interrupted", "", "")); n != 1 {
		t.Fatalf("requests_interrupted samples = %d, want 1", n)
	}
	if n, failed := len(k.values("requests", "", "")), k.values("requests_failed", "", ""); n != 0 || len(failed) != 0 {
		t.Errorf("requests = %d samples, requests_failed = %v: an interruption is neither", n, failed)
	}
	var text strings.Builder
	if err := sec.Text(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Failed requests:                         0", "Interrupted requests:                    1"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("Serving block lacks %q:\n%s", want, text.String())
		}
	}
	if strings.Contains(text.String(), "FAILED REQUESTS BY ERROR") {
		t.Errorf("an interruption is listed as a failure:\n%s", text.String())
	}
}

func TestChatAgainstSimulatorRecordsEveryMetric(t *testing.T) {
	t.Parallel()
	k, sec, vu := runScript(t, `import omni from 'omni';
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
	if err := sec.Text(&text); err != nil {
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

// pngFile is a w×h PNG, for image edits read with open(path, 'b').
func pngFile(t *testing.T, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestImageEditsSendBinaryAsMultipart(t *testing.T) {
	t.Parallel()
	_, _, vu := runScriptIn(t, scriptEnv{files: map[string][]byte{"in.png": pngFile(t, 40, 24)}}, `import { images } from 'omni';
const img = open('in.png', 'b');
export default async function () {
  const [e, s] = await Promise.all([
    images.edit({ model: 'ByteDance-Seed/BAGEL-7B-MoT', prompt: 'make it blue', image: img }),
    images.edit({ model: 'tencent/HunyuanImage-3.0', prompt: 'make it red', image: [img], stream: true }),
  ]);
  globalThis.got = JSON.stringify([e.ok, e.images.count, e.images.width, e.images.height, s.ok, s.images.count, s.timings.ttft > 0, s.text.length > 0]);
  globalThis.errs = JSON.stringify([e.error, s.error]);
}`)
	if got, want := vu.Runtime().Get("got").String(), "[true,1,40,24,true,1,true,true]"; got != want {
		t.Errorf("edit, streamed edit = %s, want %s (errors %s)", got, want, vu.Runtime().Get("errs"))
	}
}

func TestAPIKeyNeverInRecordsOrResults(t *testing.T) {
	t.Parallel()
	const key = "sk-omnik-test-secret"
	var mu sync.Mutex
	var records []*record.Record
	env := scriptEnv{cfg: Config{APIKey: key}, records: func(r *record.Record) { mu.Lock(); records = append(records, r); mu.Unlock() }}
	_, _, vu := runScriptIn(t, env, `import omni from 'omni';
export default async function () {
  const rs = await Promise.all([
    omni.chat({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 }),
    omni.chat({ messages: [{ role: 'user', content: 'hi' }] }, { headers: { 'X-Omnik-Mock-Fault': 'http500' } }),
    omni.audio.stream({ model: 'Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice', input: 'Hi.' }),
    omni.audio.stream({ input: 'Hi.' }, { headers: { 'X-Omnik-Mock-Fault': 'http503' } }),
  ]);
  globalThis.results = JSON.stringify(rs);
}`)
	results := vu.Runtime().Get("results").String()
	if strings.Contains(results, key) || !strings.Contains(results, "http_status") {
		t.Errorf("results show the key or lack the failures: %s", results)
	}
	mu.Lock()
	defer mu.Unlock()
	out, err := json.Marshal(records)
	if err != nil {
		t.Fatal(err)
	}
	if len(records) != 4 || strings.Contains(string(out), key) {
		t.Errorf("%d records, want 4 without the key: %s", len(records), out)
	}
}

// A server that answers 401 with the request's headers in its body cannot put a key
// omnik sent into a record: the module's key, its headers, a call's headers and a second
// client's key are taken out of the message by value.
func TestEchoedCredentialsNeverInRecords(t *testing.T) {
	t.Parallel()
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		_ = r.Header.Write(w)
	}))
	t.Cleanup(echo.Close)
	var mu sync.Mutex
	var records []*record.Record
	env := scriptEnv{cfg: Config{BaseURL: echo.URL, Model: "m", APIKey: "sk-module-key-1", Headers: map[string]string{"X-Api-Key": "hdr-key-2"}},
		records: func(r *record.Record) { mu.Lock(); records = append(records, r); mu.Unlock() }}
	runScriptIn(t, env, `import omni from 'omni';
const second = omni.client({ apiKey: 'sk-client-key-3', model: 'm', baseURL: '`+echo.URL+`' });
export default async function () {
  await omni.chat({ messages: [{ role: 'user', content: 'hi' }] });
  await omni.chat({ messages: [{ role: 'user', content: 'hi' }] }, { headers: { 'X-Auth-Token': 'call-token-4' } });
  await second.chat({ messages: [{ role: 'user', content: 'hi' }] });
  await omni.images.generate({ prompt: 'p' });
}`)
	mu.Lock()
	defer mu.Unlock()
	out, _ := json.Marshal(records)
	for _, secret := range []string{"sk-module-key-1", "hdr-key-2", "sk-client-key-3", "call-token-4"} {
		if strings.Contains(string(out), secret) {
			t.Errorf("a record holds %s", secret)
		}
	}
	if len(records) != 4 || !strings.Contains(string(out), "Authorization: REDACTED") || !strings.Contains(string(out), "X-Auth-Token: REDACTED") {
		t.Errorf("%d records, want 4 failures with the echo redacted: %s", len(records), out)
	}
}

func TestKeepImagesReturnsDecodedPNGs(t *testing.T) {
	t.Parallel()
	_, _, vu := runScript(t, `import { images } from 'omni';
export default async function () {
  const i = await images.generate({ model: 'ByteDance-Seed/BAGEL-7B-MoT', prompt: 'a cat', size: '32x16' }, { keepImages: true });
  const b = new Uint8Array(i.images.data[0]);
  globalThis.ok = i.ok && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47 ? 'ok' : JSON.stringify([i.error, b.length]);
}`)
	if got := vu.Runtime().Get("ok").String(); got != "ok" {
		t.Errorf("keepImages: %s", got)
	}
}

// --save-detailed's generated_texts carry what the server said; without it no text is kept.
func TestDetailedResultKeepsGeneratedText(t *testing.T) {
	t.Parallel()
	for _, detailed := range []bool{false, true} {
		_, sec, _ := runScriptIn(t, scriptEnv{section: report.SectionOptions{Detailed: detailed}}, `import omni from 'omni';
export default async function () { await omni.chat({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 }); }`)
		res, _, ok := sec.SaveResult(report.RunInfo{Date: time.Now()})
		texts, _ := res["generated_texts"].([]string)
		switch {
		case !ok:
			t.Fatal("no result")
		case detailed && (len(texts) != 1 || texts[0] == ""):
			t.Errorf("generated_texts = %#v, want the reply", res["generated_texts"])
		case !detailed && res["generated_texts"] != nil:
			t.Errorf("generated_texts without --save-detailed: %#v", res["generated_texts"])
		}
	}
}

// options.omni's limits reach the calls: text past maxTextBytes is measured but not kept,
// the result says so, and request_anomalies counts it by kind.
func TestTextLimitIsAnAnomalyTheScriptSees(t *testing.T) {
	t.Parallel()
	k, _, vu := runScriptIn(t, scriptEnv{cfg: Config{MaxTextBytes: 5}}, `import omni from 'omni';
export default async function () {
  globalThis.r = await omni.chat({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 16 });
}`)
	rt := vu.Runtime()
	r := rt.Get("r").ToObject(rt)
	anomalies := r.Get("anomalies").Export().([]any)
	if !r.Get("ok").ToBoolean() || len(r.Get("text").String()) != 5 || len(anomalies) != 1 ||
		anomalies[0].(map[string]any)["kind"] != record.AnomalyTextCut {
		t.Fatalf("result = %v", r.Export())
	}
	if got := k.values("request_anomalies", "anomaly", record.AnomalyTextCut); len(got) != 1 || got[0] != 1 {
		t.Errorf("request_anomalies{anomaly:text_truncated} = %v", got)
	}
}
