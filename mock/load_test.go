package mock

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// slowText is a text-only profile with coarse steps, so sleep jitter on a
// busy machine stays small next to the latencies the tests compare.
var slowText = Profile{Name: "slow", Model: "slow", Stages: []Stage{{Name: "thinker", Output: OutputText,
	Units: 6, TimeToFirstOutput: 20 * ms, TimePerUnit: 20 * ms}}}

// Past the knee each request in flight beyond it makes every unit slower by the slope:
// at knee 2 and slope 0.5, the 8th request's units take 4× as long. Checked on the plans
// the server makes as requests are admitted one after another, none ending, exactly: a
// busy machine's sleeps cannot decide.
func TestLatencyPerUnitGrowsPastTheKnee(t *testing.T) {
	t.Parallel()
	s, err := New(WithProfiles(slowText), WithProfile("slow"), WithLoadCurve(2, 0.5))
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]float64{1: 1, 2: 1, 3: 1.5, 8: 4} // by requests in flight, the new one included
	for inflight := 1; inflight <= 8; inflight++ {
		pl := s.newPipeline(pipelineInput{profile: &s.profiles[0], stages: slowText.Stages, visible: []bool{true}, units: []int{6}})
		out := pl.plans[0].outputs
		factor, ok := want[inflight]
		if got := out[2] - out[1]; ok && got != time.Duration(factor*float64(20*ms)) {
			t.Errorf("%d in flight: %v per unit, want %v", inflight, got, time.Duration(factor*float64(20*ms)))
		}
	}
}

// Speed divides every simulated duration: each stage's submit and every output of a
// qwen3-omni chat come ten times sooner at speed 10, and the plan, not the wall clock,
// says so (a busy machine cannot decide).
func TestSpeedScalesEveryDuration(t *testing.T) {
	t.Parallel()
	var stages []Stage
	for _, p := range builtinProfiles() {
		if p.Name == "qwen3-omni" {
			stages = p.Stages
		}
	}
	plan := func(speed float64) []stagePlan {
		units := make([]int, len(stages))
		for i := range units {
			units[i] = 40
		}
		return buildPlan(stages, planInput{units: units, load: 1, speed: speed})
	}
	slow, fast := plan(1), plan(10)
	last := slow[len(slow)-1].outputs
	if len(stages) < 3 || last[len(last)-1] < 300*time.Millisecond {
		t.Fatalf("%d stages, last output at %v at speed 1: not a full qwen3-omni chat", len(stages), last[len(last)-1])
	}
	near := func(a, b time.Duration) bool { return (a - b).Abs() <= time.Microsecond }
	for i := range slow {
		if !near(slow[i].submit, 10*fast[i].submit) || len(slow[i].outputs) != len(fast[i].outputs) {
			t.Fatalf("stage %d: submit %v at speed 1, %v at speed 10", i, slow[i].submit, fast[i].submit)
		}
		for j := range slow[i].outputs {
			if !near(slow[i].outputs[j], 10*fast[i].outputs[j]) {
				t.Fatalf("stage %d output %d: %v at speed 1, %v at speed 10", i, j, slow[i].outputs[j], fast[i].outputs[j])
			}
		}
	}
}

func TestSameSeedSameContent(t *testing.T) {
	t.Parallel()
	fetch := func(seed int64) []string {
		_, u := startServer(t, WithSeed(seed), WithSpeed(100))
		var out []string
		for _, r := range []struct{ path, body string }{
			{chatURL, `{"messages":[{"role":"user","content":"Tell me a story."}],"max_tokens":16}`},
			{speechURL, `{"input":"Hello there.","response_format":"pcm"}`},
			{"/v1/images/generations", `{"prompt":"a lighthouse","size":"24x24"}`},
		} {
			b, _ := io.ReadAll(post(t, u+r.path, r.body).Body)
			out = append(out, stripVolatile(string(b)))
		}
		return out
	}
	a, b, c := fetch(3), fetch(3), fetch(4)
	for i := range a {
		if a[i] != b[i] {
			t.Errorf("response %d differs for the same seed", i)
		}
	}
	if a[0] == c[0] || a[1] == c[1] {
		t.Error("a different seed gave the same text or audio")
	}
}

// stripVolatile blanks ids, timestamps and measured metrics.
func stripVolatile(body string) string {
	var v map[string]any
	if json.Unmarshal([]byte(body), &v) != nil {
		return body // binary audio
	}
	for _, k := range []string{"id", "created", "metrics", "stage_durations"} {
		delete(v, k)
	}
	if cs, ok := v["choices"].([]any); ok {
		for _, c := range cs {
			if a, ok := c.(map[string]any)["message"].(map[string]any)["audio"].(map[string]any); ok {
				delete(a, "id")
				delete(a, "expires_at")
			}
		}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func TestCloseEndsOpenStreams(t *testing.T) {
	t.Parallel()
	s, u := startServer(t)
	resp := post(t, u+chatURL, audioChat, FaultHeader, "stall,after=1,delay=30s")
	c := dialSpeech(t, u)
	done := make(chan error, 2)
	go func() { _, err := io.ReadAll(resp.Body); done <- err }()
	go func() { _, _, err := c.ReadMessage(); done <- err }()
	time.Sleep(50 * time.Millisecond)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		select {
		case err := <-done:
			if err == nil {
				t.Error("a stream ended cleanly, want it cut")
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a stream outlived Close")
		}
	}
	if _, err := http.Get(u + "/v1/models"); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("server still answers after Close: %v", err)
	}
}
