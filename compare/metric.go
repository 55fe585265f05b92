package compare

import (
	"strconv"
	"strings"

	"github.com/omnik-dev/omnik/metrics"
)

var (
	// neutralTrends are times that measure the output, not how fast it came.
	neutralTrends = set("audio_duration", "stage_audio_duration")
	lowerTrends   = set("audio_rtf", "stage_audio_rtf", "utterance_rtf")
	lowerCounters = set("dropped_iterations", "requests_interrupted", "http_reqs_interrupted")
)

// metricStats are a METRICS line's aggregations, keyed METRIC.STAT with STAT as
// thresholds write it short ("p99", "p99.9", "avg").
func metricStats(name string, m *metrics.MetricSummary) []Stat {
	var out []Stat
	for stat, v := range m.Values {
		if st, err := metrics.ParseStat(stat); err == nil {
			out = append(out, metricStat(name, m, st, v))
		}
	}
	return out
}

func metricStat(name string, m *metrics.MetricSummary, st metrics.Stat, v float64) Stat {
	base, sel, _ := strings.Cut(name, "{")
	s := Stat{Key: name + "." + statLabel(st), Group: Group{Section: Metrics}, Value: v,
		order: order{name: base, sub: sel, stat: statRank(st)}}
	if m.Contains == "time" && st.Name != "rate" && st.Name != "passes" && st.Name != "fails" {
		s.Unit = Milliseconds
	}
	if m.Approximate && (st.Name == "p" || st.Name == "med") {
		s.ErrorBound = m.ErrorBound
	}
	counted := m.Type == "counter" && (st.Name == "count" || st.Name == "rate")
	s.zeroIfAbsent = counted
	switch {
	case m.Type == "trend" && neutralTrends[base]:
	case m.Type == "trend" && (m.Contains == "time" || lowerTrends[base]),
		counted && lowerCounters[base],
		m.Type == "rate" && st.Name == "rate" && strings.Contains(base, "fail"):
		s.Better = Lower
	case m.Type == "rate" && st.Name == "rate" && base == "checks":
		s.Better = Higher
	case m.Type == "rate" && st.Name == "fails" && base == "checks":
		s.Better = Lower
	}
	return s
}

func statLabel(st metrics.Stat) string {
	if st.Name == "p" {
		return "p" + strconv.FormatFloat(st.P, 'f', -1, 64)
	}
	return st.Name
}

// statRank orders a line's aggregations as the summary prints them.
func statRank(st metrics.Stat) float64 {
	if st.Name == "p" {
		return 10 + st.P
	}
	return map[string]float64{"avg": 0, "min": 1, "med": 2, "max": 3, "count": 200, "rate": 201,
		"value": 202, "passes": 203, "fails": 204}[st.Name]
}
