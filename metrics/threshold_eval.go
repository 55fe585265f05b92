package metrics

// ThresholdResult is one threshold's verdict at one evaluation.
type ThresholdResult struct {
	Threshold *Threshold
	OK        bool
	// NoData is set when a Trend, Rate or Gauge (sub-)metric has no samples: the threshold
	// fails. A Counter without samples is never NoData: it counts 0 at a rate of 0.
	NoData   bool
	Observed float64
}

// Evaluation is the verdict of every threshold on one snapshot.
type Evaluation struct {
	Results []ThresholdResult
	// Abort is the first abortOnFail threshold that failed once the run was at least its
	// delayAbortEval old: the engine should stop the run now. nil otherwise.
	Abort *ThresholdResult
}

// Passed reports whether every threshold passed.
func (e Evaluation) Passed() bool {
	for _, r := range e.Results {
		if !r.OK {
			return false
		}
	}
	return true
}

// Failed returns the failing results.
func (e Evaluation) Failed() []ThresholdResult {
	var out []ThresholdResult
	for _, r := range e.Results {
		if !r.OK {
			out = append(out, r)
		}
	}
	return out
}

// EvaluateThresholds judges every threshold on snap, cumulatively from the run's start.
// The pipeline needs a sub-metric (AddSubMetric) for each threshold with a selector.
func EvaluateThresholds(ths []*Threshold, snap *Snapshot) Evaluation {
	ev := Evaluation{Results: make([]ThresholdResult, 0, len(ths))}
	for _, th := range ths {
		r := ThresholdResult{Threshold: th, NoData: true}
		if v, ok := observe(th, snap); ok {
			r.NoData, r.Observed, r.OK = false, v, th.Op.Holds(v, th.Value)
		}
		ev.Results = append(ev.Results, r)
	}
	for i, r := range ev.Results {
		if th := r.Threshold; !r.OK && th.AbortOnFail && snap.Elapsed >= th.DelayAbortEval {
			ev.Abort = &ev.Results[i]
			break
		}
	}
	return ev
}

// observe reads th's statistic on snap; ok is false when there is no data to judge.
func observe(th *Threshold, snap *Snapshot) (v float64, ok bool) {
	if sink := snap.Sink(th.SinkName()); sink != nil && sink.Count() > 0 {
		return sink.Value(th.Stat, snap.Elapsed)
	}
	// A count of nothing is a real 0 ("dropped_iterations.count == 0" on a healthy run);
	// a percentile, share or last value of nothing is not.
	if th.Metric.Kind == Counter && (th.Stat.Name == "count" || th.Stat.Name == "rate") {
		return 0, true
	}
	return 0, false
}
