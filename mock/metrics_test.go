package mock

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// checkPage pins the page's arithmetic against what the server knows it
// recorded: each histogram series' buckets are cumulative, non-decreasing,
// end at +Inf with its _count; each family's counts, sums and counter
// totals, added in page order, equal Observed exactly.
func checkPage(t *testing.T, fams []*promFamily, obs Observed) {
	t.Helper()
	for _, f := range fams {
		switch f.typ {
		case typeHistogram:
			want, ok := obs.Histograms[f.name]
			if !ok {
				t.Errorf("%s: on the page, not in Observed", f.name)
				continue
			}
			var got HistogramTotals
			last := map[string]float64{}  // cumulative count so far, by series
			bound := map[string]float64{} // the last le, by series
			inf := map[string]float64{}
			for _, s := range f.samples {
				key := seriesKey(s.labels, "le")
				switch s.name {
				case f.name + "_bucket":
					le, err := strconv.ParseFloat(s.labels["le"], 64)
					if b, seen := bound[key]; err != nil || (seen && le <= b) || s.value < last[key] {
						t.Errorf("%s%s: bucket le=%q %v after le=%v %v: not ascending and cumulative", f.name, key, s.labels["le"], s.value, b, last[key])
					}
					bound[key], last[key] = le, s.value
					if math.IsInf(le, 1) {
						inf[key] = s.value
					}
				case f.name + "_count":
					if c, ok := inf[key]; !ok || c != s.value {
						t.Errorf("%s%s: _count %v, +Inf bucket %v (present %v)", f.name, key, s.value, c, ok)
					}
					got.Count += uint64(s.value)
				case f.name + "_sum":
					got.Sum += s.value
				}
			}
			if got != want {
				t.Errorf("%s: page count %d sum %v, Observed %d %v", f.name, got.Count, got.Sum, want.Count, want.Sum)
			}
		case typeCounter:
			got := 0.0
			for _, s := range f.samples {
				got += s.value
			}
			if want, ok := obs.Counters[f.name]; !ok || got != want {
				t.Errorf("%s: page %v, Observed %v (present %v)", f.name, got, want, ok)
			}
		}
	}
	for name := range obs.Histograms {
		if findFamily(fams, name) == nil {
			t.Errorf("%s: in Observed, not on the page", name)
		}
	}
	for name := range obs.Counters {
		if findFamily(fams, name) == nil {
			t.Errorf("%s: in Observed, not on the page", name)
		}
	}
}

// waitFor polls cond until it holds; the deadline only bounds a broken run,
// the condition is what the test asserts.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never reached: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func readAll(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	return b
}

// wsSentence speaks one sentence over the streaming speech websocket.
func wsSentence(t *testing.T, u string, header ...string) {
	c := dialSpeech(t, u, header...)
	send(t, c, map[string]any{"type": "session.config", "response_format": "pcm", "stream_audio": true})
	send(t, c, map[string]any{"type": "input.text", "text": "One two three four five six seven."})
	send(t, c, map[string]any{"type": "input.done"})
	readUntil(t, c, "session.done")
}

const qwenOmni = "Qwen/Qwen3-Omni-30B-A3B-Instruct"

// servedKinds are requests of every endpoint and mode, with what each one
// makes: TTFT observations (visible engine text), audio streams, images.
var servedKinds = []struct {
	name, profile, reason string
	ttft, audio, images   int
	do                    func(t *testing.T, u string)
}{
	{"chat stream, text and audio", "qwen3-omni", "stop", 1, 1, 0, func(t *testing.T, u string) {
		parseChunks(t, mustSSE(t, post(t, u+chatURL, streamChat)))
	}},
	{"chat body, text and audio", "qwen3-omni", "stop", 1, 1, 0, func(t *testing.T, u string) {
		readAll(t, post(t, u+chatURL, `{"model":"`+qwenOmni+`","messages":[{"role":"user","content":"hi"}]}`))
	}},
	{"chat stream cut by max_tokens", "qwen3-omni", "length", 1, 0, 0, func(t *testing.T, u string) {
		parseChunks(t, mustSSE(t, post(t, u+chatURL, `{"messages":[{"role":"user","content":"hi"}],"modalities":["text"],"max_tokens":4,"stream":true}`)))
	}},
	{"chat stream, image", "bagel", "stop", 1, 0, 1, func(t *testing.T, u string) {
		parseChunks(t, mustSSE(t, post(t, u+chatURL, `{"messages":[{"role":"user","content":"draw"}],"stream":true,"size":"16x16"}`)))
	}},
	{"speech raw stream", "tts", "stop", 0, 1, 0, func(t *testing.T, u string) {
		readAll(t, post(t, u+speechURL, `{"input":"Hello there.","stream_format":"audio","response_format":"pcm"}`))
	}},
	{"speech SSE", "tts", "stop", 0, 1, 0, func(t *testing.T, u string) {
		mustSSE(t, post(t, u+speechURL, `{"input":"Hello there.","stream_format":"sse"}`))
	}},
	{"speech body", "tts", "stop", 0, 1, 0, func(t *testing.T, u string) {
		readAll(t, post(t, u+speechURL, `{"input":"Hello there."}`))
	}},
	{"speech websocket sentence", "tts", "stop", 0, 1, 0, func(t *testing.T, u string) { wsSentence(t, u) }},
	{"image generation of two", "bagel", "stop", 0, 0, 2, func(t *testing.T, u string) {
		readAll(t, post(t, u+"/v1/images/generations", `{"prompt":"a lighthouse","size":"16x16","n":2}`))
	}},
	{"image file", "hunyuan-image", "stop", 0, 0, 1, func(t *testing.T, u string) {
		readAll(t, post(t, u+"/v1/images/generations", `{"prompt":"a lighthouse","size":"16x16","response_format":"file"}`))
	}},
	{"image edit stream", "hunyuan-image", "stop", 1, 0, 1, func(t *testing.T, u string) {
		resp := postForm(t, u+"/v1/images/edits", map[string]string{"prompt": "bluer", "stream": "true", "size": "16x16"}, renderPNG(16, 16, 1))
		mustSSE(t, resp)
	}},
}

// Every request served counts once in both success counters, under its
// finish reason, and each latency family holds one observation per request
// that made what it measures; the page adds up to the same figures.
func TestEveryServedRequestCountsOnce(t *testing.T) {
	t.Parallel()
	const n = 3
	for _, tc := range servedKinds {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, u := startServer(t, WithProfile(tc.profile), WithSpeed(20))
			for range n {
				tc.do(t, u)
			}
			// Counted before the response's last byte: no wait needed.
			obs := s.Observed()
			for name, want := range map[string]float64{
				"vllm:request_success_total":       n,
				"vllm_omni:requests_success_total": n,
				"vllm_omni:image_count_total":      float64(n * tc.images),
				"vllm:prompt_tokens_total":         obs.Counters["vllm_omni:prompt_tokens_total"],
			} {
				if got := obs.Counters[name]; got != want {
					t.Errorf("%s = %v, want %v", name, got, want)
				}
			}
			images := min(tc.images, 1)
			for name, want := range map[string]int{
				"vllm:e2e_request_latency_seconds": n,
				"vllm_omni:e2e_request_latency_s":  n,
				"vllm:time_to_first_token_seconds": n * tc.ttft,
				"vllm_omni:audio_ttfp_s":           n * tc.audio,
				"vllm_omni:audio_duration_s":       n * tc.audio,
				"vllm_omni:audio_rtf":              n * tc.audio,
				"vllm_omni:image_ttfp_s":           n * images,
				"vllm_omni:diffusion_exec_s":       n * images,
				"vllm_omni:denoise_step_latency_s": n * images,
			} {
				if got := obs.Histograms[name].Count; got != uint64(want) {
					t.Errorf("%s count = %d, want %d", name, got, want)
				}
			}
			if itl := obs.Histograms["vllm:inter_token_latency_seconds"].Count; (itl > 0) != (tc.ttft > 0) {
				t.Errorf("%d inter-token latencies for %d first tokens", itl, tc.ttft)
			}
			if frames := obs.Counters["vllm_omni:audio_frames_total"]; (frames > 0) != (tc.audio > 0) {
				t.Errorf("%v audio frames for %d audio streams", frames, tc.audio)
			}
			fams := scrape(t, u)
			checkPage(t, fams, obs)
			if got := total(fams, "vllm:request_success_total", "vllm:request_success_total", map[string]string{"finished_reason": tc.reason}); got != n {
				t.Errorf("finished_reason %q: %v, want %d", tc.reason, got, n)
			}
			for _, g := range []string{"vllm:num_requests_running", "vllm:num_requests_waiting", "vllm_omni:stage_inflight_requests", "vllm:kv_cache_usage_perc"} {
				if v := total(fams, g, g, nil); v != 0 {
					t.Errorf("%s = %v with nothing in flight", g, v)
				}
			}
		})
	}
}

// A request the engine fails counts as finished_reason "error" upstream and
// "abort" in vLLM-Omni's counter (its request_failed), one cut short (reset,
// client gone) as "abort" in both, neither in the e2e histograms; a status
// fault answers before the engine and counts nowhere; a malformed event is a
// request the server believes it served.
func TestFailedRequestsCountAsTheServerWould(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, profile string
		upstream      string // vllm:request_success_total's finished_reason, "" for none
		omni          string
		do            func(t *testing.T, u string)
	}{
		{"error event mid-stream", "qwen3-omni", "error", "abort", func(t *testing.T, u string) {
			_, _ = io.ReadAll(post(t, u+chatURL, audioChat, FaultHeader, "error-event,after=2").Body)
		}},
		{"error status of a body", "qwen3-omni", "error", "abort", func(t *testing.T, u string) {
			_, _ = io.ReadAll(post(t, u+chatURL, `{"messages":[{"role":"user","content":"hi"}]}`, FaultHeader, "error-event").Body)
		}},
		{"raw speech aborted by the engine", "tts", "error", "abort", func(t *testing.T, u string) {
			_, _ = io.ReadAll(post(t, u+speechURL, `{"input":"Hello there.","stream_format":"audio"}`, FaultHeader, "error-event,after=1").Body)
		}},
		{"websocket sentence failed", "tts", "error", "abort", func(t *testing.T, u string) {
			wsSentence(t, u, FaultHeader, "error-event,after=1")
		}},
		{"reset mid-stream", "qwen3-omni", "abort", "abort", func(t *testing.T, u string) {
			_, _ = io.ReadAll(post(t, u+chatURL, audioChat, FaultHeader, "reset,after=2").Body)
		}},
		{"reset of a body", "bagel", "abort", "abort", func(t *testing.T, u string) {
			req, _ := http.NewRequest(http.MethodPost, u+"/v1/images/generations", strings.NewReader(`{"prompt":"x","size":"16x16"}`))
			req.Header.Set(FaultHeader, "reset")
			if resp, err := http.DefaultClient.Do(req); err == nil { // the reset may come before the headers
				_, _ = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
		}},
		{"client gone during a stall", "qwen3-omni", "abort", "abort", func(t *testing.T, u string) {
			ctx, cancel := context.WithCancel(context.Background())
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, u+chatURL, strings.NewReader(audioChat))
			req.Header.Set(FaultHeader, "stall,after=1,delay=60s")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = resp.Body.Read(make([]byte, 1)) // the stream has started
			cancel()
			resp.Body.Close()
		}},
		{"status fault", "qwen3-omni", "", "", func(t *testing.T, u string) {
			resp := post(t, u+chatURL, audioChat, FaultHeader, "http503")
			_, _ = io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusServiceUnavailable {
				t.Fatalf("status %d", resp.StatusCode)
			}
		}},
		{"malformed event", "qwen3-omni", "length", "length", func(t *testing.T, u string) { // audioChat's max_tokens cuts the text
			_, _ = io.ReadAll(post(t, u+chatURL, audioChat, FaultHeader, "malformed,after=2").Body)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, u := startServer(t, WithProfile(tc.profile), WithSpeed(20))
			tc.do(t, u)
			want := 0.0
			if tc.upstream != "" {
				want = 1
			}
			// A reset or an error event reaches the client before the handler ends.
			var fams []*promFamily
			waitFor(t, "the request counted and out of flight", func() bool {
				fams = scrape(t, u)
				return total(fams, "vllm:request_success_total", "vllm:request_success_total", nil) == want &&
					total(fams, "vllm:num_requests_running", "vllm:num_requests_running", nil) == 0
			})
			checkPage(t, fams, s.Observed())
			if tc.upstream == "" {
				if got := s.Observed().Counters["vllm:prompt_tokens_total"]; got != 0 {
					t.Errorf("a request the engine never saw counted %v prompt tokens", got)
				}
				return
			}
			up := total(fams, "vllm:request_success_total", "vllm:request_success_total", map[string]string{"finished_reason": tc.upstream})
			omni := total(fams, "vllm_omni:requests_success_total", "vllm_omni:requests_success_total", map[string]string{"finished_reason": tc.omni})
			if up != 1 || omni != 1 {
				t.Errorf("upstream %q: %v, vLLM-Omni %q: %v; want 1 and 1", tc.upstream, up, tc.omni, omni)
			}
			e2e := s.Observed().Histograms["vllm:e2e_request_latency_seconds"].Count
			if served := tc.omni != "abort"; (e2e == 1) != served {
				t.Errorf("e2e observations = %d for a request served %v", e2e, served)
			}
		})
	}
}

func gauge(fams []*promFamily, name string, match map[string]string) float64 {
	return total(fams, name, name, match)
}

// Past the knee the scheduler queues: with knee 2 and five requests held
// open by a stall, two run and three wait, all five in the stage the stall
// holds them in; when they end, both gauges fall to 0. The peaks are exact.
func TestWaitingRisesPastTheKneeAndFallsBack(t *testing.T) {
	t.Parallel()
	s, u := startServer(t, WithProfile("tts"), WithLoadCurve(2, 0.1))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const held = 5
	done := make(chan struct{}, held)
	for range held {
		go func() {
			defer func() { done <- struct{}{} }()
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, u+speechURL,
				strings.NewReader(`{"input":"Hello there, a long enough sentence.","stream_format":"audio","response_format":"pcm"}`))
			req.Header.Set(FaultHeader, "stall,after=1,delay=60s")
			if resp, err := http.DefaultClient.Do(req); err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	var fams []*promFamily
	waitFor(t, "five requests held at code2wav", func() bool {
		fams = scrape(t, u)
		return gauge(fams, "vllm_omni:stage_inflight_requests", map[string]string{"stage": "1"}) == held
	})
	for name, want := range map[string]float64{
		"vllm:num_requests_running":         2,
		"vllm:num_requests_waiting":         held - 2,
		"vllm_omni:num_requests_running":    2,
		"vllm_omni:num_requests_waiting":    held - 2,
		"vllm_omni:stage_inflight_requests": held,
	} {
		if got := gauge(fams, name, nil); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if kv := gauge(fams, "vllm:kv_cache_usage_perc", nil); kv <= 0 || kv > 1 {
		t.Errorf("KV cache usage %v with two running", kv)
	}
	cancel()
	for range held {
		<-done
	}
	waitFor(t, "nothing in flight", func() bool {
		fams = scrape(t, u)
		return gauge(fams, "vllm:num_requests_running", nil) == 0 && gauge(fams, "vllm:num_requests_waiting", nil) == 0
	})
	if v := gauge(fams, "vllm_omni:stage_inflight_requests", nil) + gauge(fams, "vllm:kv_cache_usage_perc", nil); v != 0 {
		t.Errorf("stage gauges and KV usage %v after the requests ended", v)
	}
	obs := s.Observed()
	if obs.PeakRunning != 2 || obs.PeakWaiting != held-2 {
		t.Errorf("peaks running %d waiting %d, want 2 and %d", obs.PeakRunning, obs.PeakWaiting, held-2)
	}
	if got := gauge(fams, "vllm:request_success_total", map[string]string{"finished_reason": "abort"}); got != held {
		t.Errorf("%v aborts, want %d", got, held)
	}
	checkPage(t, fams, obs)
}

// The server's latencies come from the moments it wrote the outputs: each
// is at most what the client measured from before it sent, and the audio
// figures equal the stage metrics the same stream carried, to their
// microsecond rounding.
func TestServerLatenciesAgreeWithTheStreamItServed(t *testing.T) {
	t.Parallel()
	s, u := startServer(t, WithProfile("qwen3-omni"), WithSpeed(5))
	sent := time.Now()
	chunks := parseChunks(t, mustSSE(t, post(t, u+chatURL, streamChat)))
	var firstText, firstAudio time.Duration
	for _, c := range chunks {
		switch {
		case c.Modality == "text" && c.text() != "" && firstText == 0:
			firstText = c.at.Sub(sent)
		case c.Modality == "audio" && firstAudio == 0:
			firstAudio = c.at.Sub(sent)
		}
	}
	obs := s.Observed()
	e2e := chunks[len(chunks)-1].at.Sub(sent)
	for name, client := range map[string]time.Duration{
		"vllm:time_to_first_token_seconds": firstText,
		"vllm_omni:audio_ttfp_s":           firstAudio,
		"vllm:e2e_request_latency_seconds": e2e,
		"vllm_omni:e2e_request_latency_s":  e2e,
	} {
		h := obs.Histograms[name]
		if h.Count != 1 || h.Sum <= 0 || h.Sum > client.Seconds() {
			t.Errorf("%s: %d observations, %vs; the client measured %v", name, h.Count, h.Sum, client)
		}
	}
	var m metricsObject
	if err := json.Unmarshal(chunks[len(chunks)-1].Metrics, &m); err != nil {
		t.Fatal(err)
	}
	code2wav := m.StageMetrics["2"]
	near := func(a, b float64) bool { return math.Abs(a-b) <= 0.0005+1e-9 } // msOf rounds to the microsecond
	if ttfp := obs.Histograms["vllm_omni:audio_ttfp_s"].Sum * 1000; !near(ttfp, code2wav.ServingTTFOMs) {
		t.Errorf("audio TTFP %v ms, stage metrics %v ms", ttfp, code2wav.ServingTTFOMs)
	}
	if d := obs.Histograms["vllm_omni:audio_duration_s"].Sum; d != code2wav.AudioDurationS || obs.Counters["vllm_omni:audio_frames_total"] != float64(code2wav.AudioFrames) {
		t.Errorf("audio %vs %v frames, stage metrics %vs %d frames", d, obs.Counters["vllm_omni:audio_frames_total"], code2wav.AudioDurationS, code2wav.AudioFrames)
	}
	if rtf, want := obs.Histograms["vllm_omni:audio_rtf"].Sum, code2wav.StageGenTimeMs/1000/code2wav.AudioDurationS; math.Abs(rtf-want) > 0.0005/1000/code2wav.AudioDurationS+1e-12 {
		t.Errorf("audio RTF %v, stage metrics give %v", rtf, want)
	}
	thinker := m.StageMetrics["0"]
	if ttft := obs.Histograms["vllm:time_to_first_token_seconds"].Sum * 1000; !near(ttft, *thinker.VllmTTFTMs) {
		t.Errorf("TTFT %v ms, stage metrics vllm_ttft_ms %v", ttft, *thinker.VllmTTFTMs)
	}
	if got := obs.Counters["vllm:generation_tokens_total"]; got != float64(thinker.NumTokensOut) {
		t.Errorf("generation tokens %v, thinker made %d", got, thinker.NumTokensOut)
	}
}

func TestNoMetricsAnswers404(t *testing.T) {
	t.Parallel()
	_, u := startServer(t, WithoutMetrics())
	resp, err := http.Get(u + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]string
	_ = json.NewDecoder(resp.Body).Decode(&body)
	if resp.StatusCode != http.StatusNotFound || body["detail"] != "Not Found" {
		t.Fatalf("GET /metrics = %d %v, want FastAPI's 404", resp.StatusCode, body)
	}
}

// The legacy prefix renames every vLLM-Omni family vllm:omni_<name> and
// leaves the upstream vllm: families as they are.
func TestLegacyPrefixRenamesTheOmniFamilies(t *testing.T) {
	t.Parallel()
	names := func(opts ...Option) (page []string, obs Observed) {
		s, u := startServer(t, append(opts, WithProfile("tts"))...)
		readAll(t, post(t, u+speechURL, `{"input":"Hello there.","stream_format":"audio"}`))
		for _, f := range scrape(t, u) {
			page = append(page, f.name)
		}
		return page, s.Observed()
	}
	current, _ := names()
	legacy, obs := names(WithMetricsPrefix(MetricsPrefixLegacy))
	if len(current) != len(legacy) {
		t.Fatalf("%d families, %d with the legacy prefix", len(current), len(legacy))
	}
	renamed := 0
	for i, name := range current {
		want := name
		if rest, ok := strings.CutPrefix(name, "vllm_omni:"); ok {
			want = "vllm:omni_" + rest
			renamed++
		}
		if legacy[i] != want {
			t.Errorf("family %d: %s, want %s", i, legacy[i], want)
		}
	}
	if renamed < 10 || obs.Histograms["vllm:omni_audio_ttfp_s"].Count != 1 || obs.Counters["vllm:omni_requests_success_total"] != 1 {
		t.Fatalf("%d families renamed; Observed %+v", renamed, obs)
	}
}

func TestMetricsConfigComesFromTheFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mock.json")
	if err := os.WriteFile(path, []byte(`{"metrics_prefix":"legacy","no_metrics":true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(path)
	if err != nil || c.MetricsPrefix != MetricsPrefixLegacy || !c.NoMetrics || c.KneeConcurrency != 8 {
		t.Fatalf("config = %+v, %v", c, err)
	}
	if d := DefaultConfig(); d.MetricsPrefix != MetricsPrefixOmni || d.NoMetrics {
		t.Fatalf("defaults = %+v", d)
	}
	if _, err := New(WithMetricsPrefix("prometheus")); err == nil || !strings.Contains(err.Error(), "metrics_prefix") {
		t.Fatalf("a bad prefix: %v", err)
	}
	if _, err := New(WithConfig(Config{Speed: 1})); err != nil {
		t.Fatalf("an empty prefix is the default: %v", err)
	}
}
