package testrun

import (
	"time"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/internal/cputime"
	"github.com/omnik-dev/omnik/metrics"
)

// Outcome is what a finished run found, for callers that start runs in-process and
// compare them (omnik sweep): the verdicts, the measured window and the client's own
// load. Its counts are the measured window's; CPU and Wall cover all the time the
// scenarios ran, warm-up included.
type Outcome struct {
	Exit engine.ExitCode
	// Thresholds are every judged threshold's verdict and observed value.
	Thresholds []metrics.ThresholdResult
	// Duration is the measured window's length (the run's less its warm-up).
	Duration time.Duration
	// Requests, Failed count the window's finished requests, ok and failed (an
	// interrupted one is neither).
	Requests, Failed int64
	// Dropped is the window's dropped_iterations: arrivals no VU was free to start (of
	// Options.OutcomeScenario, when set).
	Dropped int64
	// Interrupted is set when the run ended before its plan did; AbortReason says why
	// when an abortOnFail threshold or test.abort() ended it.
	Interrupted bool
	AbortReason string
	// CPU is the process's CPU time while the scenarios ran, over Cores cores (those it
	// may run on: cputime.Cores); zero when the platform has no process clock.
	CPU   time.Duration
	Cores int
	// CPUWait is how long the client's threads waited for a CPU, on average, each time
	// they had work while the scenarios ran: a client starved by other processes shows
	// here and not in CPU. Zero where the platform does not say.
	CPUWait time.Duration
	// ScheduleLagP99 is the window's p99 schedule_lag: how late arrival-rate iterations
	// started after their planned time (0 without arrival-rate scenarios; of
	// Options.OutcomeScenario, when set).
	ScheduleLagP99 time.Duration
	// ByScenario are the window's request counts of each scenario.
	ByScenario map[string]RequestCount
	// Wall is how long the scenarios ran, warm-up included: CPU's wall clock.
	Wall time.Duration
}

// RequestCount is a scenario's finished requests, ok and failed.
type RequestCount struct{ OK, Failed int64 }

// CPUShare is the fraction of its cores the process kept busy while the scenarios ran.
func (o *Outcome) CPUShare() float64 { return cputime.Share(o.CPU, o.Wall, o.Cores) }

// Throughput is the window's finished requests per second, failed ones included.
func (o *Outcome) Throughput() float64 {
	if o.Duration <= 0 {
		return 0
	}
	return float64(o.Requests+o.Failed) / o.Duration.Seconds()
}

// Outcome is what Run found; nil before Run returned.
func (t *Test) Outcome() *Outcome { return t.outcome }

// outcomeSinks are the sinks of the arrival schedule's metrics the Outcome reads:
// dropped_iterations and schedule_lag, or, with Options.OutcomeScenario, that scenario's
// sub-metrics (other scenarios beside it drop and lag on their own account), which p
// then follows.
func (t *Test) outcomeSinks(p *metrics.Pipeline) (dropped, lag string, err error) {
	dropped, lag = "dropped_iterations", "schedule_lag"
	sc := t.opts.OutcomeScenario
	if sc == "" {
		return dropped, lag, nil
	}
	sel := metrics.NewTagSet(map[string]string{"scenario": sc})
	for _, name := range []string{dropped, lag} {
		if m := t.registry.Get(name); m != nil {
			if err := p.AddSubMetric(m, sel); err != nil {
				return "", "", err
			}
		}
	}
	return metrics.SubMetricName(dropped, sel), metrics.SubMetricName(lag, sel), nil
}

func newOutcome(code engine.ExitCode, res engine.Result, ev metrics.Evaluation, end runEnd, measured *requestCounts, w *window, snap *metrics.Snapshot, dropped, lag string) *Outcome {
	o := &Outcome{Exit: code, Thresholds: ev.Results, Duration: end.Duration, Interrupted: res.Interrupted, AbortReason: res.AbortReason,
		Cores: cputime.Cores(), Wall: res.Duration, ByScenario: measured.all()}
	for _, n := range o.ByScenario {
		o.Requests, o.Failed = o.Requests+n.OK, o.Failed+n.Failed
	}
	w.load.mu.Lock()
	o.CPU, o.CPUWait = w.load.cpu, w.load.wait
	w.load.mu.Unlock()
	if snap != nil {
		if c, ok := snap.Sink(dropped).(*metrics.CounterSink); ok {
			o.Dropped = int64(c.Sum)
		}
		if lag := snap.Sink(lag); lag != nil {
			if ms, ok := lag.Value(metrics.Percentile(99), end.Duration); ok {
				o.ScheduleLagP99 = time.Duration(ms * float64(time.Millisecond))
			}
		}
	}
	return o
}
