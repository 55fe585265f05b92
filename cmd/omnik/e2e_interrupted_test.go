package main

import "testing"

// stalledChat is a VU body whose second call never finishes on its own: the simulator
// stalls it after one chunk for longer than any of these runs.
const stalledChat = `
export default async function () {
  await omni.chat({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 });
  await omni.chat({ messages: [{ role: 'user', content: 'hi' }] },
    { headers: { 'X-Omnik-Mock-Fault': 'stall,after=1,delay=60s' } });
}
`

// Requests the run cuts off (end of gracefulStop, an abort) are interrupted: counted
// apart, and never failures, so a failure-rate threshold is not tripped by the run's own
// ending.
func TestRequestsTheRunCutsOffAreInterruptedNotFailed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, options string
		code          int
	}{
		{"gracefulStop 0s", `{ scenarios: { s: { executor: 'constant-vus', vus: 2, duration: '1s', gracefulStop: '0s' } },
  thresholds: { requests_failed: ['rate == 0'] } }`, 0},
		{"abortOnFail", `{ vus: 2, duration: '60s',
  thresholds: { requests_failed: ['rate == 0'], requests: [{ threshold: 'count < 1', abortOnFail: true }] } }`, 99},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := writeFiles(t, map[string]string{"script.js": "import omni from 'omni';\nexport const options = " + tc.options + ";\n" + stalledChat})
			r := runOmnik(t, dir, nil, "run", "-q", "--mock", "script.js")
			expect{code: tc.code,
				stdout:    []string{"✓ rate == 0", "Failed requests:                         0 ", "Interrupted requests:                    2 ", "requests_interrupted"},
				notStdout: []string{"FAILED REQUESTS BY ERROR"},
			}.check(t, r)
		})
	}
}
