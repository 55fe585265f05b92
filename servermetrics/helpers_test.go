package servermetrics

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// page renders a vLLM-like page: running and waiting gauges, a success counter, and a
// TTFT histogram over the buckets 0.05, 0.1, 0.5, +Inf with the given cumulative counts.
type page struct {
	running, waiting float64
	success          float64
	ttft             [4]float64 // cumulative bucket counts
	ttftSum          float64
	stageInflight    map[string]float64
	legacy           bool
}

func (p page) String() string {
	var b strings.Builder
	omni := "vllm_omni:"
	if p.legacy {
		omni = "vllm:omni_"
	}
	fmt.Fprintf(&b, "# HELP vllm:num_requests_running Running.\n# TYPE vllm:num_requests_running gauge\n")
	fmt.Fprintf(&b, "vllm:num_requests_running{model_name=\"m\"} %g\n", p.running)
	fmt.Fprintf(&b, "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{model_name=\"m\"} %g\n", p.waiting)
	fmt.Fprintf(&b, "# TYPE vllm:request_success_total counter\nvllm:request_success_total{finished_reason=\"stop\",model_name=\"m\"} %g\n", p.success)
	fmt.Fprintf(&b, "# TYPE vllm:time_to_first_token_seconds histogram\n")
	for i, le := range []string{"0.05", "0.1", "0.5", "+Inf"} {
		fmt.Fprintf(&b, "vllm:time_to_first_token_seconds_bucket{le=\"%s\",model_name=\"m\"} %g\n", le, p.ttft[i])
	}
	fmt.Fprintf(&b, "vllm:time_to_first_token_seconds_sum{model_name=\"m\"} %g\n", p.ttftSum)
	fmt.Fprintf(&b, "vllm:time_to_first_token_seconds_count{model_name=\"m\"} %g\n", p.ttft[3])
	if len(p.stageInflight) > 0 {
		fmt.Fprintf(&b, "# TYPE %sstage_inflight_requests gauge\n", omni)
		for st, v := range p.stageInflight {
			fmt.Fprintf(&b, "%sstage_inflight_requests{model_name=\"m\",stage=%q} %g\n", omni, st, v)
		}
	}
	b.WriteString("# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 12.5\n")
	return b.String()
}

func mustParse(t *testing.T, p page) []Point {
	t.Helper()
	pts, _, err := Parse([]byte(p.String()), recognised)
	if err != nil {
		t.Fatal(err)
	}
	return pts
}

func scrapeOf(t *testing.T, at time.Duration, ph Phase, p page) Scrape {
	return Scrape{At: at, Phase: ph, Points: mustParse(t, p)}
}
