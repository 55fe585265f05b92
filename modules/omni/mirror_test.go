package omni

import (
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/omnik-dev/omnik/mock"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// startSim starts a simulator on loopback for the test; its URL.
func startSim(t *testing.T, opts ...mock.Option) string {
	t.Helper()
	srv, err := mock.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	url, err := srv.StartLoopback()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return url
}

// mirrorScript makes calls chat calls on the default client, mirrored to b at bURL.
func mirrorScript(bURL string, calls int) string {
	return fmt.Sprintf(`import omni from 'omni';
const b = omni.client({ baseURL: %q, target: 'b', mirror: true });
export default async function () {
  globalThis.results = [];
  for (let i = 0; i < %d; i++) {
    globalThis.results.push(await omni.chat({ messages: [{ role: 'user', content: 'call ' + i }], modalities: ['text'], max_tokens: 8, seed: i }));
  }
  globalThis.direct = await b.chat({ messages: [{ role: 'user', content: 'direct' }], modalities: ['text'], max_tokens: 8 });
}`, bURL, calls)
}

// A mirrored call goes to the default client and to b with the same body: each pair of
// records shares a pair id, the script gets the default's result with b's under
// mirrors, and a call made on b itself is b's alone. Against a simulator 50 times
// faster than b's (b's 80 ms to a first token is a sleep it cannot beat; the default's
// 1.6 ms would need 78 ms of scheduling delay to catch up), the A/B block shows b slower
// with a positive sign, and with no failure every call is paired, so the mean paired
// difference is the difference of the two targets' means.
func TestMirrorSendsEachCallToBothTargetsAndPairsThem(t *testing.T) {
	t.Parallel()
	const calls = 12
	fast := startSim(t, mock.WithSpeed(50), mock.WithProfile("qwen3-omni"))
	slow := startSim(t, mock.WithSpeed(1), mock.WithProfile("qwen3-omni"))
	var mu sync.Mutex
	var recs []*record.Record
	env := scriptEnv{cfg: Config{BaseURL: fast}, records: func(r *record.Record) { mu.Lock(); recs = append(recs, r); mu.Unlock() }}
	k, sec, vu := runScriptIn(t, env, mirrorScript(slow, calls))

	byPair := map[string][]*record.Record{}
	direct := 0
	for _, r := range recs {
		if id := r.Metadata[record.MetaPair]; id != "" {
			if r.Metadata[record.MetaPairSize] != "2" {
				t.Errorf("pair_size = %q, want 2", r.Metadata[record.MetaPairSize])
			}
			byPair[id] = append(byPair[id], r)
		} else if r.Tags["target"] == "b" {
			direct++
		}
	}
	if len(byPair) != calls || direct != 1 {
		t.Fatalf("%d pairs and %d unpaired b records, want %d and 1", len(byPair), direct, calls)
	}
	for id, pair := range byPair {
		if len(pair) != 2 || pair[0].Tags["target"] != "default" || pair[1].Tags["target"] != "b" || !pair[0].OK() || !pair[1].OK() {
			t.Fatalf("pair %s: %d records, targets %v/%v", id, len(pair), pair[0].Tags, pair[len(pair)-1].Tags)
		}
		// One seed and one prompt generate one text: the simulator got the same body.
		if pair[0].Text == "" || pair[0].Text != pair[1].Text {
			t.Errorf("pair %s: texts %q and %q, want the same", id, pair[0].Text, pair[1].Text)
		}
	}
	rt := vu.Runtime()
	first := rt.Get("results").ToObject(rt).Get("0").ToObject(rt)
	mirrors := first.Get("mirrors").Export().([]any)
	if len(mirrors) != 1 || mirrors[0].(map[string]any)["target"] != "b" || mirrors[0].(map[string]any)["ok"] != true {
		t.Errorf("result.mirrors = %v, want b's ok result", mirrors)
	}
	if d := rt.Get("direct").ToObject(rt); d.Get("mirrors") != nil {
		t.Errorf("a call on b itself has mirrors: %v", d.Get("mirrors"))
	}
	if n, m := len(k.values("ttft", "target", "default")), len(k.values("ttft", "target", "b")); n != calls || m != calls+1 {
		t.Errorf("ttft samples: %d target:default, %d target:b; want %d and %d", n, m, calls, calls+1)
	}

	out := sectionText(t, sec)
	for _, want := range []string{"A/B Benchmark Result", "Baseline:                                default", "Paired: b - default, mirrored calls",
		fmt.Sprintf("Pairs compared:                          %d ", calls), "Pairs with a failed side (excluded):     0 "} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	ab := sec.JSON().(map[string]any)["ab"].(map[string]any)
	targets := ab["targets"].(map[string]any)
	meanA := targets["default"].(map[string]any)["mean_ttft_ms"].(float64)
	meanB := targets["b"].(map[string]any)["mean_ttft_ms"].(float64)
	ttft := ab["paired"].(map[string]any)["b"].(map[string]any)["ttft"].(map[string]any)
	if !(meanB > meanA) || ttft["mean_ms"].(float64) <= 0 || ttft["median_ms"].(float64) <= 0 {
		t.Errorf("b is the slower: mean TTFT %v vs %v, paired %v", meanB, meanA, ttft)
	}
	// b's unpaired mean has its direct call too: the paired mean is over the pairs only.
	bPaired := 0.0
	for _, pair := range byPair {
		v, _ := record.TTFT(pair[1])
		bPaired += record.Millis(v)
	}
	if want := bPaired/calls - meanA; math.Abs(ttft["mean_ms"].(float64)-want) > 1e-9*math.Abs(want) {
		t.Errorf("paired mean TTFT difference %v, want mean(b) − mean(default) over the pairs = %v", ttft["mean_ms"], want)
	}
	if below := ttft["lower"].(int); below+ttft["higher"].(int)+ttft["tied"].(int) != calls {
		t.Errorf("lower/higher/tied = %v, want %d pairs in all", ttft, calls)
	}
}

// A mirror's failure counts on its side only, and its pair is left out of the paired
// differences and counted.
func TestMirrorFailureIsCountedAndItsPairExcluded(t *testing.T) {
	t.Parallel()
	const calls = 8
	ok := startSim(t, mock.WithSpeed(50))
	flaky := startSim(t, mock.WithSpeed(50), mock.WithFaults(mock.Fault{Kind: mock.FaultHTTP500, Probability: 0.5}))
	var mu sync.Mutex
	failed := 0
	env := scriptEnv{cfg: Config{BaseURL: ok}, records: func(r *record.Record) {
		mu.Lock()
		defer mu.Unlock()
		if r.Failed() {
			if r.Tags["target"] != "b" {
				t.Errorf("a %s request failed: %v", r.Tags["target"], r.Err)
			}
			if r.Metadata[record.MetaPair] != "" {
				failed++
			}
		}
	}}
	_, sec, _ := runScriptIn(t, env, mirrorScript(flaky, calls))
	js := sec.JSON().(map[string]any)["ab"].(map[string]any)
	paired := js["paired"].(map[string]any)["b"].(map[string]any)
	if failed == 0 || failed == calls {
		t.Fatalf("%d of %d mirrored b requests failed: the seeded draws no longer test both cases", failed, calls)
	}
	if paired["excluded"] != failed || paired["pairs"] != calls-failed {
		t.Errorf("paired = %v; %d mirrored b requests failed of %d", paired, failed, calls)
	}
	if got := js["targets"].(map[string]any)["default"].(map[string]any)["failed"]; got != 0 {
		t.Errorf("default's failed = %v, want 0", got)
	}
}

// mirror: true needs a name its requests are told apart by.
func TestMirrorNeedsATargetName(t *testing.T) {
	t.Parallel()
	m := New()
	for _, raw := range []map[string]any{{"mirror": true}, {"mirror": true, "target": "default"}} {
		if _, _, err := m.newScriptClient(raw); err == nil || !strings.Contains(err.Error(), "mirror: true needs a target name") {
			t.Errorf("omni.client(%v): %v", raw, err)
		}
	}
}

func sectionText(t *testing.T, sec interface {
	Text(w io.Writer) error
}) string {
	t.Helper()
	var b strings.Builder
	if err := sec.Text(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
