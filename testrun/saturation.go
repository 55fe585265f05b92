package testrun

import (
	"fmt"
	"strings"
	"time"

	"github.com/omnik-dev/omnik/metrics"
)

// The client's own limits. Past any of them the client, not only the server, shaped what
// was measured: a run's summary warns, and omnik sweep stops there.
const (
	// SaturatedShare is the share of its cores past which the client is busy enough to
	// delay its own reads and arrivals: k6's advice to keep 20 % idle, made a rule.
	SaturatedShare = 0.8
	// StarvedWait is the mean wait for a CPU, each time the client had work, past which
	// other processes (or its own load) starve it: unloaded, that wait is tens of µs.
	StarvedWait = 10 * time.Millisecond
	// LaggedP99 bounds the p99, over the seconds, of each second's worst lag: past it, in
	// more than 1 % of the seconds a goroutine that was due waited a tenth of the probe's
	// interval or more. Every response read then is stamped that much late, ten times the
	// 1 ms the per-chunk timings aim at, so the tails the summary prints are partly the
	// client's; and it is StarvedWait, the same delay seen from the kernel's side.
	LaggedP99 = 10 * time.Millisecond
)

// clientVerdict is the client's own load over the measured window, and whether it was
// its own limit: the End line's client (v1.5).
type clientVerdict struct {
	// CPU is the mean of each second's share of the Cores usable cores the process kept
	// busy (client_cpu's avg); CPUWait the mean of its threads' mean waits for a CPU
	// (client_cpu_wait's avg); LagP99 client_lag's p99.
	CPU     float64       `json:"cpu"`
	Cores   int           `json:"cores"`
	CPUWait time.Duration `json:"cpu_wait_ns"`
	LagP99  time.Duration `json:"lag_p99_ns"`
	// Dropped are the arrivals no VU was free to start: VUs, the most VUs the run had,
	// were all busy (work left when a scenario ended is not counted here).
	Dropped int64 `json:"dropped_iterations"`
	VUs     int64 `json:"vus_max"`
	// Simulated: the --mock simulator ran in the process, its work counted as the client's.
	Simulated bool `json:"simulated,omitempty"`
	// Saturated: past a limit; Warning is then the summary's line.
	Saturated bool   `json:"saturated"`
	Warning   string `json:"warning,omitempty"`
}

// readClient reads the verdict's evidence from a run's final snapshot and judges it.
// noVU are the run's arrivals that found no VU free (engine.Result.DroppedNoVU): the
// window's dropped_iterations count work left at a scenario's end too, and noVU counts
// the warm-up too, so the lesser of the two is the window's arrivals without a VU, exactly
// when there is no warm-up and at most that with one.
func readClient(snap *metrics.Snapshot, cores int, noVU int64, simulated bool) *clientVerdict {
	v := &clientVerdict{Cores: cores, Simulated: simulated}
	value := func(name string, st metrics.Stat) float64 {
		if s := snap.Sink(name); s != nil {
			if x, ok := s.Value(st, snap.Elapsed); ok {
				return x
			}
		}
		return 0
	}
	dur := func(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }
	v.CPU = value("client_cpu", metrics.Stat{Name: "avg"})
	v.CPUWait = dur(value("client_cpu_wait", metrics.Stat{Name: "avg"}))
	v.LagP99 = dur(value("client_lag", lagPercentile(value("client_lag", metrics.Stat{Name: "count"}))))
	v.Dropped = min(int64(value("dropped_iterations", metrics.Stat{Name: "count"})), noVU)
	v.VUs = int64(value("vus_max", metrics.Stat{Name: "max"}))
	v.judge()
	return v
}

// lagPercentile is the p99 of n seconds' worst lags, but never above the second worst:
// in a run of under a hundred seconds the p99 would be the one worst second, and a
// single stall (all VUs dialing at once) is not a client that stays behind.
func lagPercentile(n float64) metrics.Stat {
	if n < 2 {
		return metrics.Percentile(99)
	}
	return metrics.Percentile(min(99, 100*(1-1.5/n)))
}

// judge sets Saturated, when the evidence is past a limit, and Warning.
func (v *clientVerdict) judge() {
	v.Saturated = len(v.evidence()) > 0
	v.Warning = ""
	if v.Saturated {
		v.Warning = v.line("")
	}
}

func (v *clientVerdict) busy() bool    { return v.CPU >= SaturatedShare }
func (v *clientVerdict) starved() bool { return v.CPUWait >= StarvedWait }
func (v *clientVerdict) lagged() bool  { return v.LagP99 >= LaggedP99 }

// evidence is each reading past its limit, for humans.
func (v *clientVerdict) evidence() []string {
	var e []string
	if v.busy() {
		unit := "cores"
		if v.Cores == 1 {
			unit = "core"
		}
		e = append(e, fmt.Sprintf("CPU %.0f %% of %d %s", 100*v.CPU, v.Cores, unit))
	}
	if v.starved() {
		e = append(e, fmt.Sprintf("waited %.1f ms for a CPU on average", ms(v.CPUWait)))
	}
	if v.lagged() {
		e = append(e, fmt.Sprintf("lag p99 %.0f ms", ms(v.LagP99)))
	}
	if v.Dropped > 0 {
		vus := "no VU free"
		switch {
		case v.VUs == 1:
			vus = "its one VU busy"
		case v.VUs > 1:
			vus = fmt.Sprintf("all %d VUs busy", v.VUs)
		}
		e = append(e, fmt.Sprintf("%d arrivals dropped (%s)", v.Dropped, vus))
	}
	return e
}

// line is the summary's warning: the evidence, what it does to the numbers, and what to
// do. where, when set, names the piece of a merged run it is about.
func (v *clientVerdict) line(where string) string {
	var effect, advice []string
	queued := v.busy() || v.starved() || v.lagged()
	if queued {
		effect = append(effect, "latencies include the client's own queueing")
	}
	if v.Dropped > 0 {
		effect = append(effect, "not all the load asked for was sent")
	}
	if v.busy() || v.lagged() {
		advice = append(advice, "keep 20 % idle: more cores, fewer VUs, or split the run over machines (--execution-segment)")
	}
	if v.starved() && !v.busy() {
		advice = append(advice, "other processes kept it from a core: give it cores of its own (taskset)")
	}
	if v.Dropped > 0 {
		advice = append(advice, "raise maxVUs if the client, not the server, should absorb the arrivals")
	}
	if queued && v.Simulated {
		advice = append(advice, "with --mock the simulator runs in this process and its work counts as the client's")
	}
	if where != "" {
		where = " (" + where + ")"
	}
	return fmt.Sprintf("WARNING client saturated%s: %s — %s; %s", where, strings.Join(v.evidence(), ", "),
		strings.Join(effect, " and "), strings.Join(advice, "; "))
}

// ms is d in milliseconds, as the metrics and the line give it.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
