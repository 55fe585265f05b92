package omni

import (
	"strings"
	"testing"
)

// A video job against the simulator, end to end: the script's call creates it, Go polls
// it at the script's interval and downloads it, and the record feeds the result, the
// metrics (tagged endpoint:videos, modality:video) and the Video Result and video stage
// blocks.
func TestVideoJobAgainstSimulator(t *testing.T) {
	t.Parallel()
	k, sec, vu := runScript(t, `import omni from 'omni';
export default async function () {
  globalThis.r = await omni.videos.generate(
    { model: 'Wan-AI/Wan2.2-T2V-A14B-Diffusers', prompt: 'a lake at sunrise', num_frames: 32, fps: 16, size: '160x96' },
    { pollInterval: 5, tags: { kind: 't2v' } });
}`)
	rt := vu.Runtime()
	r := rt.Get("r").ToObject(rt)
	if !r.Get("ok").ToBoolean() {
		t.Fatalf("result = %v", r.Export())
	}
	v := r.Get("video").ToObject(rt)
	if v.Get("status").String() != "completed" || !strings.HasPrefix(v.Get("id").String(), "video_gen_") ||
		v.Get("duration").ToFloat() != 2 || v.Get("frames").ToInteger() != 32 || v.Get("fps").ToFloat() != 16 ||
		v.Get("bytes").ToInteger() <= 32*(160*96/100) || v.Get("source").String() != "server" || v.Get("pollInterval").ToFloat() != 5 {
		t.Errorf("video = %v", v.Export())
	}
	if !(v.Get("generation").ToFloat() > 0 && v.Get("rtf").ToFloat() > 0 && v.Get("pollWindow").ToFloat() >= 0 &&
		v.Get("content").ToFloat() >= r.Get("timings").ToObject(rt).Get("e2el").ToFloat()) {
		t.Errorf("video timings = %v, e2el %v", v.Export(), r.Get("timings").Export())
	}
	for _, name := range []string{"video_rtf", "video_generation", "video_duration", "video_poll_window"} {
		if n := len(k.values(name, "modality", "video")); n != 1 {
			t.Errorf("%s{modality:video} samples = %d, want 1", name, n)
		}
	}
	if n := len(k.values("requests", "endpoint", "videos")); n != 1 {
		t.Errorf("requests{endpoint:videos} samples = %d", n)
	}
	if n := len(k.values("e2el", "kind", "t2v")); n != 1 {
		t.Errorf("user tag missing on e2el: %d samples", n)
	}
	var text strings.Builder
	if err := sec.Text(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{" Video Result ", "Total video duration generated(s):       2.00      \n",
		"Total video frames generated:            32        \n", "Mean VIDEO_RTF:", "Mean VIDEO_GENERATION (ms):",
		"================= Stage 0 (dit) ==================\n================== Video Result ==================\n-----------------Video Generation-----------------\n"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, text.String())
		}
	}
	if strings.Contains(text.String(), " Text Result ") {
		t.Errorf("a text-less video run printed a Text Result:\n%s", text.String())
	}
}

// A job that fails mid-way and one that never completes are failures with their
// reasons, counted by kind.
func TestVideoJobFailuresAgainstSimulator(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, fault, params string
		kind, says          string
	}{
		{"failed job", "error-event", "", "job_failed", "failed after"},
		{"poll timeout", "stall,delay=1h", "timeout: 300,", "timeout", "not completed within the timeout"},
		{"5xx on a poll", "http503,after=1", "", "http_status", "status poll 1 of job"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			k, _, vu := runScript(t, `import omni from 'omni';
export default async function () {
  globalThis.r = await omni.videos.generate({ model: 'Wan-AI/Wan2.2-T2V-A14B-Diffusers', prompt: 'x' },
    { `+tt.params+` pollInterval: 10, headers: { 'X-Omnik-Mock-Fault': '`+tt.fault+`' } });
}`)
			rt := vu.Runtime()
			r := rt.Get("r").ToObject(rt)
			e, _ := r.Get("error").Export().(map[string]any)
			if r.Get("ok").ToBoolean() || e["kind"] != tt.kind || !strings.Contains(e["message"].(string), tt.says) {
				t.Fatalf("result = %v", r.Export())
			}
			if failed := k.values("requests_failed", "error", tt.kind); len(failed) != 1 || failed[0] != 1 {
				t.Errorf("requests_failed{error:%s} = %v", tt.kind, failed)
			}
		})
	}
}

// A pollInterval that would spin the poll loop (not finite, under 1 ms) or a timeout
// that is not finite throws a TypeError before any request.
func TestVideoJobRefusesASpinningPollInterval(t *testing.T) {
	t.Parallel()
	_, _, vu := runScript(t, `import omni from 'omni';
export default async function () {
  globalThis.errs = [];
  for (const p of [{ pollInterval: Infinity }, { pollInterval: 0.0001 }, { pollInterval: 0 }, { pollInterval: NaN }, { timeout: Infinity }]) {
    try {
      await omni.videos.generate({ prompt: 'a lake' }, p);
      errs.push('no error');
    } catch (e) {
      errs.push((e instanceof TypeError) + ' ' + e.message);
    }
  }
}`)
	rt := vu.Runtime()
	var errs []string
	if err := rt.ExportTo(rt.Get("errs"), &errs); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"true omni.videos.generate(): pollInterval must be a finite number of ms >= 1, got Infinity",
		"true omni.videos.generate(): pollInterval must be a finite number of ms >= 1, got 0.0001",
		"true omni.videos.generate(): pollInterval must be a finite number of ms >= 1, got 0",
		"true omni.videos.generate(): pollInterval must be a finite number of ms >= 1, got NaN",
		"true omni.videos.generate(): timeout must be a finite number of ms >= 0, got Infinity",
	}
	if strings.Join(errs, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(errs, "\n"), strings.Join(want, "\n"))
	}
}
