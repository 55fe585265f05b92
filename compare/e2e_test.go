package compare

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/mock"
	"github.com/omnik-dev/omnik/testrun"
)

// chatScript makes n chat requests over two VUs, in two scenarios so the table has a
// block per scenario.
func chatScript(n string) string {
	return `import omni from 'omni';
export const options = {
  scenarios: {
    chat: { executor: 'shared-iterations', vus: 2, iterations: ` + n + `, exec: 'chat' },
    speech: { executor: 'shared-iterations', vus: 1, iterations: 2, exec: 'speech' },
  },
};
export async function chat() {
  await omni.chat({ model: 'Qwen/Qwen3-Omni-30B-A3B-Instruct', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 });
}
export async function speech() {
  await omni.audio.speech({ model: 'Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice', input: 'Hello.', voice: 'vivian' });
}
`
}

// runMock runs src in process against a fast simulator and returns its result file and
// summary export.
func runMock(t *testing.T, dir, name, src string) (results, summary string) {
	t.Helper()
	sim, err := mock.New(mock.WithSpeed(20))
	if err != nil {
		t.Fatal(err)
	}
	results, summary = filepath.Join(dir, name+".ndjson.gz"), filepath.Join(dir, name+".json")
	test, err := testrun.Load(testrun.Options{Script: testrun.Script{Name: name + ".js", Source: []byte(src)},
		Outs: []string{"json=" + results}, SummaryExport: summary, Quiet: true, Log: slog.New(slog.DiscardHandler),
		Omni: testrun.OmniOptions{Mock: sim}})
	if err != nil {
		t.Fatal(err)
	}
	defer test.Close()
	if code, err := test.Run(context.Background()); err != nil || code != engine.ExitOK {
		t.Fatalf("run %s: exit %d, %v", name, code, err)
	}
	return results, summary
}

// compareRun is omnik compare in process: its exit code, stdout and log.
func compareRun(t *testing.T, o Options) (engine.ExitCode, string, string) {
	t.Helper()
	var stdout, log bytes.Buffer
	o.Stdout, o.Log, o.NoColor = &stdout, slog.New(slog.NewTextHandler(&log, nil)), true
	code, err := Report(o)
	if err != nil {
		t.Fatalf("compare %s %s: %v", o.Base, o.New, err)
	}
	return code, stdout.String(), log.String()
}

func TestCompareRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	results, summary := runMock(t, dir, "four", chatScript("4"))
	_, more := runMock(t, dir, "eight", chatScript("8"))

	t.Run("a result file and its summary export read the same", func(t *testing.T) {
		a, err := Load(results, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Load(summary, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The export is indented, the run block's raw settings with it.
		ra, _ := json.Marshal(a.Run)
		rb, _ := json.Marshal(b.Run)
		if a.Format != ResultFile || b.Format != SummaryExport || !reflect.DeepEqual(a.Stats, b.Stats) || !reflect.DeepEqual(a.Metrics, b.Metrics) || string(ra) != string(rb) {
			t.Errorf("%s (%s) and %s (%s) differ", results, a.Format, summary, b.Format)
		}
		for _, key := range []string{"serving.completed", "serving[chat].completed", "stage[chat/thinker].mean_stage_gen_time_ms", "ttft.p99", "requests.count"} {
			if _, ok := a.Stats[key]; !ok {
				t.Errorf("no %s", key)
			}
		}
	})
	t.Run("the same run twice changes nothing", func(t *testing.T) {
		code, out, log := compareRun(t, Options{Base: summary, New: results, FailOn: []string{"ttft.p99 > +1%", "serving.completed < -1"}})
		if code != engine.ExitOK || log != "" {
			t.Errorf("exit %d, log:\n%s", code, log)
		}
		table, gates, _ := strings.Cut(out, "\nGATES\n")
		for _, l := range strings.Split(table, "\n") {
			if strings.HasPrefix(l, "  ") && !strings.HasSuffix(l, " =") && !strings.Contains(l, "CHANGE") {
				t.Errorf("a change: %q", l)
			}
		}
		if !strings.Contains(gates, "✓ ttft.p99 > +1%") || !strings.Contains(gates, "no change") {
			t.Errorf("gates:\n%s", gates)
		}
	})
	t.Run("another script and load warn, a crossed gate fails", func(t *testing.T) {
		code, out, log := compareRun(t, Options{Base: results, New: more, FailOn: []string{"serving[chat].completed > +50%", "requests_failed.rate > 0.5"}})
		if code != engine.ExitThresholdsFailed {
			t.Errorf("exit %d, want 99", code)
		}
		for _, want := range []string{"script differs: four.js", "load differs: scenario chat: shared-iterations iterations 4 → 8",
			"gates crossed: serving[chat].completed > +50%: 4 → 8, change +4 (+100.0%)"} {
			if !strings.Contains(log, want) {
				t.Errorf("log lacks %q:\n%s", want, log)
			}
		}
		if !strings.Contains(out, "✗ serving[chat].completed > +50%") || !strings.Contains(out, "✓ requests_failed.rate > 0.5") {
			t.Errorf("gates:\n%s", out)
		}
	})
}
