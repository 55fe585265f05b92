package compare

import (
	"slices"
	"strings"

	"github.com/omnik-dev/omnik/metrics"
	httpmodule "github.com/omnik-dev/omnik/modules/http"
	"github.com/omnik-dev/omnik/modules/omni"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// builtins are the metrics every run declares: a gate on one that neither run has
// samples of finds no data (or, for a counter, zero), not an unknown key.
var builtins = func() *metrics.Registry {
	r := metrics.NewRegistry()
	metrics.RegisterBuiltins(r)
	omni.RegisterMetrics(r)
	httpmodule.RegisterMetrics(r)
	return r
}()

// isSectionKey tells a Serving or Stage key from a METRICS one.
func isSectionKey(key string) bool {
	return strings.HasPrefix(key, "serving.") || strings.HasPrefix(key, "serving[") || strings.HasPrefix(key, "stage[")
}

// splitMetricKey reads "ttft{scenario:chat}.p(99)" as the metric's name and its
// aggregation; ok is false for what is not METRIC.STAT.
func splitMetricKey(key string) (name string, st metrics.Stat, ok bool) {
	from := 0
	if i := strings.LastIndexByte(key, '}'); i >= 0 {
		from = i
	}
	dot := strings.IndexByte(key[from:], '.')
	if dot < 0 {
		return "", st, false
	}
	st, err := metrics.ParseStat(key[from+dot+1:])
	return key[:from+dot], st, err == nil
}

// normalizeKey writes a METRICS key's aggregation as the table does ("p(99)" → "p99");
// other keys stay as they are.
func normalizeKey(key string) string {
	if isSectionKey(key) {
		return key
	}
	if name, st, ok := splitMetricKey(key); ok {
		return name + "." + statLabel(st)
	}
	return key
}

// declaredStat is the statistic key names for a key neither run has: an aggregation
// of a built-in metric, or the failures of a known error kind. ok is false when key is
// neither.
func declaredStat(key string) (Stat, bool) {
	if kind, ok := strings.CutPrefix(key, failurePrefix); ok && slices.Contains(record.ErrorKinds(), kind) {
		return failureStat(kind, 0), true
	}
	name, st, ok := splitMetricKey(key)
	if isSectionKey(key) || !ok {
		return Stat{}, false
	}
	base, _, _ := strings.Cut(name, "{")
	m := builtins.Get(base)
	if m == nil || !m.Kind.Supports(st) {
		return Stat{}, false
	}
	return metricStat(name, &metrics.MetricSummary{Type: m.Kind.String(), Contains: m.Contains.String()}, st, 0), true
}
