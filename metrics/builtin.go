package metrics

// Builtin holds the metrics every run has.
type Builtin struct {
	Iterations        *Metric
	IterationDuration *Metric
	DroppedIterations *Metric
	ScheduleLag       *Metric
	VUs               *Metric
	VUsMax            *Metric
	Checks            *Metric
	GroupDuration     *Metric
	DataSent          *Metric
	DataReceived      *Metric
}

// RegisterBuiltins registers the built-in metrics in r.
func RegisterBuiltins(r *Registry) *Builtin {
	return &Builtin{
		Iterations:        r.MustNew("iterations", Counter, Default),
		IterationDuration: r.MustNew("iteration_duration", Trend, Time),
		DroppedIterations: r.MustNew("dropped_iterations", Counter, Default),
		ScheduleLag:       r.MustNew("schedule_lag", Trend, Time),
		VUs:               r.MustNew("vus", Gauge, Default),
		VUsMax:            r.MustNew("vus_max", Gauge, Default),
		Checks:            r.MustNew("checks", Rate, Default),
		GroupDuration:     r.MustNew("group_duration", Trend, Time),
		DataSent:          r.MustNew("data_sent", Counter, Data),
		DataReceived:      r.MustNew("data_received", Counter, Data),
	}
}
