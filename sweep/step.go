package sweep

import (
	"fmt"
	"math"
	"time"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/testrun"
)

// What a step must offer for its verdict to be the load's. Past them the load asked for
// was not the load sent, so the step fails however its thresholds went.
const (
	// maxDroppedShare of the planned arrivals may find no VU free.
	maxDroppedShare = 0.01
	// maxScheduleLag is the p99 of how late arrivals may start (all VUs busy, queued).
	maxScheduleLag = 100 * time.Millisecond
)

// Step is one load the sweep ran and what it found.
type Step struct {
	N    int     `json:"step"`
	Load float64 `json:"load"`
	// Passed: every threshold passed, the load was offered, and the run ended as planned.
	Passed     bool      `json:"passed"`
	Thresholds []Verdict `json:"thresholds"`
	// Requests and Failed are the swept scenario's in the measured window; Throughput is
	// their rate, what the server achieved (which, past the knee, is less than the load
	// offered, and a little less below it: the window runs to the last response).
	Requests   int64   `json:"requests"`
	Failed     int64   `json:"failed"`
	Throughput float64 `json:"achieved_per_s"`
	// Dropped are the window's arrivals no VU was free to start; ScheduleLagP99 how late
	// the others started. NotOffered says why the load asked for was not the load sent.
	Dropped        int64         `json:"dropped_iterations"`
	ScheduleLagP99 time.Duration `json:"schedule_lag_p99_ns"`
	NotOffered     string        `json:"not_offered,omitempty"`
	// CPU is the share of its cores the client kept busy, CPUWait its mean wait for a
	// CPU; Saturated and Starved when past testrun.SaturatedShare and StarvedWait.
	CPU       float64       `json:"client_cpu"`
	CPUWait   time.Duration `json:"client_cpu_wait_ns"`
	Cores     int           `json:"client_cores"`
	Saturated bool          `json:"client_saturated"`
	Starved   bool          `json:"client_starved"`
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

// newStep judges a step's outcome: the swept scenario's requests, and the load it was
// asked to hold over the measured window planned.
func newStep(n int, load float64, file string, p *plan, o *testrun.Outcome) Step {
	c := o.ByScenario[p.target.name]
	s := Step{N: n, Load: load, File: file, Requests: c.OK, Failed: c.Failed, Dropped: o.Dropped, ScheduleLagP99: o.ScheduleLagP99,
		CPU: o.CPUShare(), CPUWait: o.CPUWait, Cores: o.Cores, Exit: o.Exit, Ended: o.AbortReason, Measured: o.Duration}
	if o.Duration > 0 {
		s.Throughput = float64(c.OK+c.Failed) / o.Duration.Seconds()
	}
	s.Saturated, s.Starved = s.CPU >= testrun.SaturatedShare, s.CPUWait >= testrun.StarvedWait
	if p.spec.Knob == Rate {
		s.NotOffered = notOffered(load*p.spec.Duration.Seconds(), s.Dropped, s.ScheduleLagP99)
	}
	s.Thresholds = verdicts(o.Thresholds)
	s.Passed = o.Exit == engine.ExitOK && s.NotOffered == ""
	return s
}

// notOffered says why a rate was not sent as asked, "" when it was.
func notOffered(planned float64, dropped int64, lag time.Duration) string {
	switch {
	case float64(dropped) > maxDroppedShare*planned:
		return fmt.Sprintf("%d of %.0f arrivals dropped: no VU was free (raise maxVUs if the client, not the server, should absorb them)", dropped, planned)
	case lag > maxScheduleLag:
		return fmt.Sprintf("arrivals started late, schedule_lag p99 %s: every VU was busy (raise maxVUs if the client, not the server, should absorb them)", lag.Round(time.Millisecond))
	}
	return ""
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

// clientLimit says how the client was its own limit at this step, "" when it was not.
func (st Step) clientLimit() string {
	switch {
	case st.Saturated:
		return fmt.Sprintf("the client saturated (%.0f%% of its %d cores busy)", 100*st.CPU, st.Cores)
	case st.Starved:
		return fmt.Sprintf("the client was starved of CPU (it waited %s on average for a core each time it had work)", st.CPUWait.Round(10*time.Microsecond))
	}
	return ""
}
