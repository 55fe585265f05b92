package main

import (
	"strings"
	"testing"
)

// An omnik/http health check and an omni call against the simulator, printed by
// --http-debug=full with every credential redacted and every body bounded.
func TestRunHTTPDebugPrintsBothModulesCallsRedacted(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"script.js": `import http from 'omnik/http';
import omni from 'omni';
import { check } from 'omnik';
export const options = { iterations: 1, omni: { apiKey: 'sk-omni-secret' },
  thresholds: { http_req_failed: ['rate == 0'], 'http_reqs{name:health}': ['count == 1'] } };
export default async function () {
  const h = http.get('/health', { tags: { name: 'health' } });
  const m = http.get('/v1/models?api_key=query-secret', { headers: { Authorization: 'Bearer header-secret', 'X-Api-Key': 'api-key-secret' } });
  check(m, { 'models listed': (r) => r.json().data.length > 0, 'health 200': () => h.status === 200 });
  await omni.chat({ messages: [{ role: 'user', content: 'Hi' }], max_tokens: 400 });
}
`})
	r := runOmnik(t, dir, nil, "run", "-q", "--mock", "--http-debug=full", "script.js")
	expect{code: 0,
		stdout:    []string{"✓ models listed", "✓ count == 1", "http_req_duration", "Serving Benchmark Result"},
		stderr:    []string{"GET http://127.0.0.1:", "/health HTTP/1.1", "/v1/models?api_key=REDACTED", "Authorization: Bearer REDACTED", "X-Api-Key: REDACTED", "POST http://127.0.0.1:", "/v1/chat/completions", "response body ---\n", `"messages"`},
		notStderr: []string{"secret"},
	}.check(t, r)
	// Full mode prints at most 4 KiB of a body: the streamed chat of 400 tokens is cut.
	if !strings.Contains(r.stderr, "more bytes not shown") {
		t.Errorf("the chat stream's body was not cut:\n%s", r.stderr)
	}
}

func TestRunK6HabitsGetHints(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"k6.js":      "import http from 'k6/http';\nexport default function () { http.get('http://x/'); }\n",
		"summary.js": "import { textSummary } from 'https://jslib.k6.io/k6-summary/0.0.2/index.js';\nexport default function () {}\n",
	})
	expect{code: 104, stderr: []string{`k6.js:1:18: cannot import "k6/http": omnik is not k6; use "omnik/http"`}}.check(t,
		runOmnik(t, dir, nil, "run", "-q", "k6.js"))
	expect{code: 104, stderr: []string{`import { textSummary } from "omnik/summary"`}}.check(t,
		runOmnik(t, dir, nil, "run", "-q", "summary.js"))
	expect{code: 104, stderr: []string{`--http-debug="bodies": want headers (the default) or full`}}.check(t,
		runOmnik(t, dir, nil, "run", "-q", "--http-debug=bodies", "k6.js"))
}

// omnik bench takes --http-debug too, with the --header credential redacted.
func TestBenchHTTPDebugRedactsTheHeaderCredential(t *testing.T) {
	t.Parallel()
	r := runOmnik(t, t.TempDir(), nil, "bench", "--mock", "-q", "--num-prompts", "1", "--random-output-len", "4",
		"--http-debug", "--header", "Authorization=Bearer sk-bench-secret")
	expect{code: 0, stderr: []string{"POST http://", "/v1/chat/completions", "Authorization: Bearer REDACTED"},
		notStderr: []string{"sk-bench-secret"}, notStdout: []string{"sk-bench-secret"}}.check(t, r)
}
