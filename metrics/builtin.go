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
	// The client's own load, sampled about once a second while the scenarios run (the
	// evidence of testrun's saturation verdict): the share of its usable cores it kept
	// busy, its threads' mean wait for a CPU, and the worst lateness of its lag probe.
	ClientCPU     *Metric
	ClientCPUWait *Metric
	ClientLag     *Metric
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
		ClientCPU:         quiet(r.MustNew("client_cpu", Trend, Default)),
		ClientCPUWait:     quiet(r.MustNew("client_cpu_wait", Trend, Time)),
		ClientLag:         quiet(r.MustNew("client_lag", Trend, Time)),
	}
}

// quiet marks a metric the text summary lists only when a threshold judges it, set
// while it is registered, before anyone shares it.
func quiet(m *Metric) *Metric {
	m.Quiet = true
	return m
}
