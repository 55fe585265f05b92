package testrun

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// fileLines splits a result file into its Record offsets and End line.
func fileLines(t *testing.T, path string) (offsets []time.Duration, ends []time.Duration, end runEnd) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var line struct {
			Type string          `json:"type"`
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		switch line.Type {
		case "Record":
			var r struct {
				OffsetMS float64 `json:"offset_ms"`
				E2ELMS   float64 `json:"e2el_ms"`
			}
			if err := json.Unmarshal(line.Data, &r); err != nil {
				t.Fatal(err)
			}
			offsets = append(offsets, time.Duration(r.OffsetMS*float64(time.Millisecond)))
			ends = append(ends, time.Duration((r.OffsetMS+r.E2ELMS)*float64(time.Millisecond)))
		case "End":
			if err := json.Unmarshal(line.Data, &end); err != nil {
				t.Fatal(err)
			}
		}
	}
	return offsets, ends, end
}

// A warm-up is out of everything the run measures: the file holds only the requests that
// ended after it, the End line counts the others, the iterations counted are those
// requests' iterations, the benchmark duration begins where the warm-up ended, the
// Outcome counts what the file holds, and omnik report prints the live summary again
// from the file.
func TestWarmupIsLeftOutOfTheMeasuredRun(t *testing.T) {
	t.Parallel()
	src := `import omni from 'omni';
export const options = {
  scenarios: { gate: { executor: 'constant-arrival-rate', rate: 100, duration: '1500ms', preAllocatedVUs: 20 } },
  thresholds: { e2el: ['p(99) < 60000'] },
};
export default async function () { await omni.chat({ messages: [{ role: 'user', content: 'ping' }], modalities: ['text'], max_tokens: 64 }); }
`
	const warmup = 600 * time.Millisecond
	live := runScript(t, src, Options{Outs: []string{"json=out.ndjson"}, Warmup: warmup, SummaryExport: "s.json"}, nil)
	if live.code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", live.code, live.stdout, live.log)
	}
	offsets, ends, end := fileLines(t, filepath.Join(live.dir, "out.ndjson"))
	from := end.ScenarioStarts["gate"]
	if end.Warmup != warmup || from < warmup || end.MeasuredFrom != from {
		t.Fatalf("End line: warmup %v from %v, the scenario's measured start %v: want the %v warm-up, starting no earlier", end.Warmup, end.MeasuredFrom, from, warmup)
	}
	// 150 arrivals in all.
	if n := int64(len(offsets)); n == 0 || end.WarmupRecords == 0 || n+end.WarmupRecords > 150 {
		t.Errorf("%d requests measured, %d in the warm-up: want some of each, 150 at most together", n, end.WarmupRecords)
	}
	last := end.ScheduleEnds["gate"]
	straddled := false
	for i, e := range ends {
		straddled = straddled || offsets[i] < from
		if e < from {
			t.Errorf("a request that ended at %v is in the file, before the window began at %v", e, from)
		}
		last = max(last, e)
	}
	// Requests of about 20 ms, 10 ms apart: some are in flight as the window begins.
	if !straddled {
		t.Errorf("no request started in the warm-up and ended after it; the test needs requests longer than the 10 ms between arrivals")
	}
	// An iteration is one request, and its point is stamped after its request ended: a
	// window that began between the two splits them, at most once for each of the 20 VUs.
	if its := readExport(t, filepath.Join(live.dir, "s.json")).Metrics["iterations"].Values["count"]; its < float64(len(offsets)) || its > float64(len(offsets)+20) {
		t.Errorf("%v iterations counted beside %d requests: the window takes both by when they ended", its, len(offsets))
	}
	// Had the warm-up not moved the start, the schedule's 1.5 s would all be in it.
	if sched := end.ScheduleEnds["gate"] - from; sched >= 1500*time.Millisecond || sched < 900*time.Millisecond {
		t.Errorf("the measured schedule lasts %v: want the 1.5 s less the warm-up's 0.6 s (and less than 0.6 s of start-up)", sched)
	}
	// The block prints it to 2 decimals.
	if got, want := printed(t, live.stdout, "Benchmark duration (s):"), (last - from).Seconds(); got < want-0.0051 || got > want+0.0051 {
		t.Errorf("benchmark duration %.3f s, want %.3f s: from the window's start to the last end", got, want)
	}
	o := live.outcome
	if o.Requests+o.Failed != int64(len(offsets)) || o.Duration != end.Duration || len(o.Thresholds) != 1 || !o.Thresholds[0].OK {
		t.Errorf("outcome %+v: want the file's %d requests over its %v, and the threshold's verdict", o, len(offsets), end.Duration)
	}
	if o.CPU <= 0 || o.Cores < 1 {
		t.Errorf("outcome: %v of CPU on %d cores: a run of 15 requests uses some", o.CPU, o.Cores)
	}
	offline := reportFile(t, filepath.Join(live.dir, "out.ndjson"), ReportOptions{})
	if offline.stdout != live.stdout {
		t.Errorf("re-report differs:\n%s", lineDiff(live.stdout, offline.stdout))
	}
}

// Without a warm-up nothing is left out.
func TestNoWarmupMeasuresEverything(t *testing.T) {
	t.Parallel()
	src := `import omni from 'omni';
export const options = { scenarios: { gate: { executor: 'shared-iterations', vus: 2, iterations: 6 } } };
export default async function () { await omni.chat({ messages: [{ role: 'user', content: 'ping' }], modalities: ['text'], max_tokens: 4 }); }
`
	live := runScript(t, src, Options{Outs: []string{"json=out.ndjson"}}, nil)
	offsets, _, end := fileLines(t, filepath.Join(live.dir, "out.ndjson"))
	if len(offsets) != 6 || end.WarmupRecords != 0 || end.Warmup != 0 || end.MeasuredFrom != 0 || live.outcome.Requests != 6 {
		t.Errorf("%d requests in the file, End %+v, outcome %+v: want all 6, nothing warmed up", len(offsets), end, live.outcome)
	}
}
