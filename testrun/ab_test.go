package testrun

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/mock"
)

// abScript mirrors every chat call of the default client (runScript's simulator, at 20×
// speed) to b at __ENV.B_URL, with the thresholds given.
func abScript(thresholds string) string {
	return fmt.Sprintf(`import omni from 'omni';
const b = omni.client({ baseURL: __ENV.B_URL, target: 'b', mirror: true });
export const options = { vus: 2, iterations: 8, thresholds: { %s } };
export default async function () {
  await omni.chat({ model: 'Qwen/Qwen3-Omni-30B-A3B-Instruct', messages: [{ role: 'user', content: 'Tell me about the tide.' }],
    modalities: ['text'], max_tokens: 8 });
}
`, thresholds)
}

// slowSim is a second simulator at 2× speed: its thinker's 80 ms to a first token is a
// 40 ms sleep, which no request to it can beat.
func slowSim(t *testing.T) string {
	t.Helper()
	sim, err := mock.New(mock.WithSpeed(2))
	if err != nil {
		t.Fatal(err)
	}
	url, err := sim.StartLoopback()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	return url
}

// Thresholds select a target by its tag, the default client's included (target:default),
// against two simulators; the live summary has the A/B block with the mirrored calls'
// paired rows, and `omnik report` of the run's file prints it again byte for byte.
func TestThresholdsSelectATargetAndReportReprintsTheABBlock(t *testing.T) {
	t.Parallel()
	env := map[string]string{"B_URL": slowSim(t)}
	live := runScript(t, abScript(`'ttft{target:b}': ['count == 8', 'min >= 40'], 'e2el{target:b}': ['min >= 40'],
    'ttft{target:default}': ['count == 8'], ttft: ['count == 16']`), Options{Env: env, Outs: []string{"json=out.ndjson"}}, nil)
	if live.code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", live.code, live.stdout, live.log)
	}
	for _, want := range []string{"✓ count == 8", "✓ min >= 40", "✓ count == 16", "A/B Benchmark Result", "Paired: b - default, mirrored calls",
		"Pairs compared:                          8 "} {
		if !strings.Contains(live.stdout, want) {
			t.Errorf("the summary lacks %q:\n%s", want, live.stdout)
		}
	}
	offline := reportFile(t, filepath.Join(live.dir, "out.ndjson"), ReportOptions{})
	if offline.stdout != live.stdout || offline.code != live.code {
		t.Errorf("re-report differs (exit %d, live %d):\n%s", offline.code, live.code, lineDiff(live.stdout, offline.stdout))
	}

	// b's first tokens all take 40 ms or more: a bound on its side alone fails.
	failing := runScript(t, abScript(`'ttft{target:b}': ['max < 40']`), Options{Env: map[string]string{"B_URL": env["B_URL"]}}, nil)
	if failing.code != engine.ExitThresholdsFailed || !strings.Contains(failing.stdout, "✗ max < 40") {
		t.Errorf("exit %d, want %d with ✗ max < 40:\n%s", failing.code, engine.ExitThresholdsFailed, failing.stdout)
	}
}
