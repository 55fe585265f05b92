package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestRunMockChat(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"script.js": `import omni from 'omni';
import { check } from 'omnik';
export const options = { vus: 2, iterations: 4, thresholds: { requests_failed: ['rate == 0'] } };
export default async function () {
  const res = await omni.chat({ messages: [{ role: 'user', content: 'Hi' }], modalities: ['text', 'audio'], max_tokens: 16 });
  check(res, { 'ok': (r) => r.ok, 'text': (r) => r.text.length > 0, 'audio': (r) => r.audio.duration > 0 });
}
`})
	r := runOmnik(t, dir, nil, "run", "-q", "--mock", "--out", "json=out.json", "script.js")
	expect{code: 0,
		stdout: []string{"Serving Benchmark Result", "Successful requests:                     4 ", "Failed requests:                         0 ",
			"Stage Benchmark Result", "Stage 0 (thinker)", "✓ ok  100.00%  4 passes", "✓ rate == 0"},
		stderr: []string{"SIMULATED"},
	}.check(t, r)
	countNDJSON(t, filepath.Join(dir, "out.json"))
	data, err := os.ReadFile(filepath.Join(dir, "out.json"))
	if err != nil {
		t.Fatal(err)
	}
	var records int
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec struct {
			Type string `json:"type"`
			Data struct {
				Endpoint string  `json:"endpoint"`
				OK       bool    `json:"ok"`
				E2EL     float64 `json:"e2el_ms"`
				Stages   map[string]json.RawMessage
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil || rec.Type != "Record" {
			continue
		}
		records++
		if rec.Data.Endpoint != "chat" || !rec.Data.OK || rec.Data.E2EL <= 0 || len(rec.Data.Stages) == 0 {
			t.Errorf("record = %+v, want an ok chat with e2el and stages", rec.Data)
		}
	}
	if records != 4 {
		t.Errorf("%d Record lines, want one per request (4)", records)
	}
}

// e2eMarker is an example's "// e2e: exit=N ARGS..." line: the exit code its header
// documents and the extra flags that give it.
var e2eMarker = regexp.MustCompile(`(?m)^//\s*e2e:(.*)$`)

// TestExamplesRunShortAgainstTheMock runs every example script in its short mode.
func TestExamplesRunShortAgainstTheMock(t *testing.T) {
	t.Parallel()
	scriptsDir, err := filepath.Abs(filepath.Join("..", "..", "examples", "scripts"))
	if err != nil {
		t.Fatal(err)
	}
	var scripts []string
	for _, pat := range []string{"*.js", "*.mjs", "*.ts"} {
		m, _ := filepath.Glob(filepath.Join(scriptsDir, pat))
		scripts = append(scripts, m...)
	}
	if len(scripts) == 0 {
		t.Fatalf("no scripts in %s", scriptsDir)
	}
	for _, path := range scripts {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(src), "__ENV.") {
				t.Fatalf("%s has no short mode: it reads no __ENV variable (e.g. __ENV.DURATION)", path)
			}
			// At 4× speed the examples' latency thresholds keep their margin on a machine
			// whose cores other tests keep busy; what they check does not depend on speed.
			want, args := 0, []string{"run", "-q", "--mock", "--mock-speed", "4", "-e", "DURATION=2s", "--summary-export", "summary.json"}
			if m := e2eMarker.FindStringSubmatch(string(src)); m != nil {
				for _, f := range strings.Fields(m[1]) {
					if code, ok := strings.CutPrefix(f, "exit="); ok {
						if want, err = strconv.Atoi(code); err != nil {
							t.Fatalf("e2e marker %q: %v", m[0], err)
						}
						continue
					}
					args = append(args, f)
				}
			}
			dir := t.TempDir()
			r := runOmnik(t, dir, nil, append(args, path)...)
			expect{code: want, stderr: []string{"SIMULATED"}}.check(t, r)
			if want == 0 && !strings.Contains(r.stdout, "Serving Benchmark Result") {
				t.Errorf("no Serving Benchmark Result block:\n%s", r)
			}
			// The scenarios' own time, not the process's, which a loaded machine stretches:
			// every example that runs by the clock runs 10 s or more in full, and its short
			// mode runs 2 s (ramp-to-knee's three stages 6 s), plus its last requests.
			if d := time.Duration(readSummaryExport(t, filepath.Join(dir, "summary.json")).TestRunDurationMs * float64(time.Millisecond)); d >= 10*time.Second {
				t.Errorf("%s ran %v in its short mode; keep it to a few seconds", filepath.Base(path), d)
			}
		})
	}
}
