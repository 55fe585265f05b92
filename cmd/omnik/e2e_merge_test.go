package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// distributedScript is deterministic in what it counts: 24 arrivals, every sixth
// answered 500, fixed token and audio lengths.
const distributedScript = `import omni from 'omni';
import exec from 'omnik/execution';
export const options = {
  scenarios: { chat: { executor: 'constant-arrival-rate', rate: 24, timeUnit: '1s', duration: '1s', preAllocatedVUs: 48 } },
  thresholds: { requests_failed: ['rate < 0.5'] },
};
export default async function () {
  const fail = exec.scenario.iterationInTest % 6 === 0;
  await omni.chat({ messages: [{ role: 'user', content: 'Count to five.' }], max_tokens: 12 },
    fail ? { headers: { 'X-Omnik-Mock-Fault': 'http500' } } : {});
}
`

// countRows are the rows a merge must reproduce exactly.
var countRows = regexp.MustCompile(`(?m)^(Successful requests|Failed requests|Total input tokens|Total generated tokens|Total audio frames generated|Stage generated tokens|Stage audio frames generated):\s+(\S+)|^\s+(http_status \d+)`)

// Four processes run as the pods of an Indexed Job run, JOB_COMPLETION_INDEX=0..3, each
// its piece of the schedule from one --start-at, and omnik merge of their files counts
// exactly what one process counts; a threshold that only the whole run crosses fails
// the merge though every piece passes it.
func TestFourIndexedPiecesMergeToTheSingleRun(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"script.js": distributedScript})
	single := runOmnik(t, dir, cleanEnv(), "run", "-q", "--mock", "--out", "json=single.ndjson", "script.js")
	if single.code != 0 {
		t.Fatalf("single run:\n%s", single)
	}
	// One absolute time zero for all, as the manifest gives the pods.
	startAt := time.Now().Add(3 * time.Second).UTC().Format(time.RFC3339Nano)
	pieces := make([]result, 4)
	var wg sync.WaitGroup
	for i := range pieces {
		wg.Go(func() {
			env := append(cleanEnv(), fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i), "OMNIK_SEGMENTS=4", "OMNIK_RUN_ID=job-uid-1")
			pieces[i] = runOmnik(t, dir, env, "run", "-q", "--mock", "--execution-segment", "auto", "--start-at", startAt,
				"--no-thresholds", "--out", fmt.Sprintf("json=pieces/p%d.ndjson.gz", i), "script.js")
		})
	}
	wg.Wait()
	for i, p := range pieces {
		if p.code != 0 {
			t.Fatalf("piece %d:\n%s", i, p)
		}
	}
	merged := runOmnik(t, dir, cleanEnv(), "merge", "--threshold", "requests.count < 20", filepath.Join(dir, "pieces"))
	expect{code: 99, stdout: []string{`omnik merge: 4 pieces of run "job-uid-1" (0:1/4, 1/4:1/2, 1/2:3/4, 3/4:1), start skew `,
		"✗ requests.count < 20", "✓ rate < 0.5"}}.check(t, merged)
	if got, want := countRows.FindAllString(merged.stdout, -1), countRows.FindAllString(single.stdout, -1); fmt.Sprint(got) != fmt.Sprint(want) || len(want) < 4 {
		t.Errorf("merged counts %q, single run's %q", got, want)
	}
	// The pieces judged nothing (--no-thresholds); the merge judges the script's.
	for i, p := range pieces {
		if strings.Contains(p.stdout, "THRESHOLDS") {
			t.Errorf("piece %d judged thresholds:\n%s", i, p.stdout)
		}
	}
	if r := runOmnik(t, dir, cleanEnv(), "merge", filepath.Join(dir, "pieces")); r.code != 0 || !strings.Contains(r.stdout, "✓ rate < 0.5") {
		t.Errorf("merge with the script's thresholds only:\n%s", r)
	}
	// Each piece alone passes the threshold the merged run crosses.
	for i := range pieces {
		r := runOmnik(t, dir, cleanEnv(), "report", "--threshold", "requests.count < 20", filepath.Join(dir, "pieces", fmt.Sprintf("p%d.ndjson.gz", i)))
		if r.code != 0 {
			t.Errorf("piece %d alone:\n%s", i, r)
		}
	}
	// A missing piece is refused, saying which part of the test is missing.
	missing := runOmnik(t, dir, cleanEnv(), "merge", filepath.Join(dir, "pieces", "p0.ndjson.gz"), filepath.Join(dir, "pieces", "p1.ndjson.gz"), filepath.Join(dir, "pieces", "p3.ndjson.gz"))
	expect{code: 104, stderr: []string{"segments 1/2:3/4 are missing (1/4 of the test)"}}.check(t, missing)
}

// The pieces number VUs and closed-executor iterations test-wide: together they use each
// exec.vu.idInTest and exec.scenario.iterationInTest once, as one process would.
func TestPiecesNumberVUsAndIterationsTestWide(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"script.js": `import exec from 'omnik/execution';
export const options = { scenarios: { s: { executor: 'per-vu-iterations', vus: 2, iterations: 2 } } };
export default function () { console.log('NUMBERS vu=' + exec.vu.idInTest + ' it=' + exec.scenario.iterationInTest); }
`})
	seen := map[string]int{}
	for _, seg := range []string{"0:1/2", "1/2:1"} {
		r := runOmnik(t, dir, cleanEnv(), "run", "-q", "--no-summary", "--execution-segment", seg, "script.js")
		for _, m := range regexp.MustCompile(`NUMBERS (vu=\d+) (it=\d+)`).FindAllStringSubmatch(r.stderr, -1) {
			seen[m[1]]++
			seen[m[2]]++
		}
	}
	want := map[string]int{"vu=1": 2, "vu=2": 2, "it=0": 1, "it=1": 1, "it=2": 1, "it=3": 1}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("numbers over both pieces %v, want %v (each VU's two iterations, each iteration once)", seen, want)
	}
}
