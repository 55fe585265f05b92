package sweep

import (
	"math"
	"time"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/testrun"
)

// SaturatedShare is the share of its cores past which the client, not the server, is
// the bottleneck: a client busy 80 % of the time delays its own reads and arrivals, so
// what it measures is partly itself (k6's advice to keep 20 % idle, made a rule).
const SaturatedShare = 0.8

// Step is one load the sweep ran and what it found.
type Step struct {
	N    int     `json:"step"`
	Load float64 `json:"load"`
	// Passed: every threshold passed and the run ended as planned.
	Passed     bool      `json:"passed"`
	Thresholds []Verdict `json:"thresholds"`
	// Requests and Failed are the measured window's; Throughput is their rate, what the
	// server achieved (which, past the knee, is less than the load offered).
	Requests   int64   `json:"requests"`
	Failed     int64   `json:"failed"`
	Throughput float64 `json:"achieved_per_s"`
	Dropped    int64   `json:"dropped_iterations"`
	// CPU is the share of its cores the client kept busy; Saturated when past
	// SaturatedShare.
	CPU       float64 `json:"client_cpu"`
	Saturated bool    `json:"client_saturated"`
	// Exit is the step's own exit code; Ended says why a step ended early.
	Exit     engine.ExitCode `json:"exit_code"`
	Ended    string          `json:"ended,omitempty"`
	Measured time.Duration   `json:"measured_ns"`
	// File is the step's result file (omnik report, compare, the HTML report read it).
	File string `json:"file"`
}

// Verdict is one threshold's on one step.
type Verdict struct {
	Threshold string  `json:"threshold"`
	OK        bool    `json:"ok"`
	NoData    bool    `json:"no_data,omitempty"`
	Observed  float64 `json:"observed"`
}

func newStep(n int, load float64, file string, o *testrun.Outcome) Step {
	s := Step{N: n, Load: load, File: file, Requests: o.Requests, Failed: o.Failed, Throughput: o.Throughput(),
		Dropped: o.Dropped, CPU: o.CPUShare(), Exit: o.Exit, Ended: o.AbortReason, Measured: o.Duration}
	s.Saturated = s.CPU >= SaturatedShare
	s.Thresholds = verdicts(o.Thresholds)
	s.Passed = o.Exit == engine.ExitOK
	return s
}

func verdicts(rs []metrics.ThresholdResult) []Verdict {
	out := make([]Verdict, len(rs))
	for i, r := range rs {
		out[i] = Verdict{Threshold: r.Threshold.String(), OK: r.OK, NoData: r.NoData, Observed: r.Observed}
		if math.IsNaN(r.Observed) || math.IsInf(r.Observed, 0) {
			out[i].Observed, out[i].NoData = 0, true // JSON has no NaN, and it is no value
		}
	}
	return out
}
