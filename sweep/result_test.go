package sweep

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// The table's text is fixed: a row per load from the lowest, the threshold columns in
// the script's order, a saturated and starved client, a load not offered and an aborted
// step marked.
func TestResultTextGolden(t *testing.T) {
	v := func(th string, ok bool, obs float64) Verdict { return Verdict{Threshold: th, OK: ok, Observed: obs} }
	r := &Result{Knob: Rate, Scenario: "chat", Dir: "sweep-20261201-120000", Elapsed: 83 * time.Second,
		Spec: Spec{Warmup: 10 * time.Second, Duration: 30 * time.Second, Precision: 0.05},
		Pass: 6.17, Fail: 6.44, Stop: "the answer is within 5%",
		Steps: []Step{
			{N: 1, Load: 1, Passed: true, Requests: 30, Throughput: 1, CPU: 0.03, CPUWait: 40 * time.Microsecond, Thresholds: []Verdict{v("ttft.p(99) < 900", true, 412.3), v("server:vllm:num_requests_waiting.max < 1", true, 0)}},
			{N: 4, Load: 8, Requests: 231, Failed: 9, Throughput: 7.46, Dropped: 12, CPU: 0.85, Saturated: true, CPUWait: 12500 * time.Microsecond, Starved: true,
				NotOffered: "12 of 240 arrivals dropped: no VU was free", Thresholds: []Verdict{v("ttft.p(99) < 900", false, 2210.05), v("server:vllm:num_requests_waiting.max < 1", false, 14)}},
			{N: 5, Load: 5.66, Passed: true, Requests: 170, Throughput: 5.61, CPU: 0.11, Thresholds: []Verdict{v("ttft.p(99) < 900", true, 650), v("server:vllm:num_requests_waiting.max < 1", true, 0)}},
			{N: 6, Load: 6.73, Requests: 12, Throughput: 6.2, CPU: 0.12, Ended: "threshold ttft.p(99) < 900 failed", Thresholds: []Verdict{v("ttft.p(99) < 900", false, 1300), {Threshold: "server:vllm:num_requests_waiting.max < 1", NoData: true}}},
		}}
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "table.golden")
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("table differs from %s (-update rewrites it):\n%s", path, b.String())
	}
}

// Small factors still climb: a load that rounds back to the last one moves to the next.
func TestSearchClimbsOnSmallFactors(t *testing.T) {
	for _, knob := range []Knob{VUs, Rate} {
		s := newSearch(knob, 1, 4, 1.1, 0.05)
		tried := runSearch(s, 1000)
		if len(tried) < 2 || tried[len(tried)-1] != 4 {
			t.Errorf("%s: tried %v: want a climb to 4", knob, tried)
		}
		for i := 1; i < len(tried); i++ {
			if tried[i] <= tried[i-1] {
				t.Errorf("%s: tried %v: not climbing", knob, tried)
			}
		}
	}
}
