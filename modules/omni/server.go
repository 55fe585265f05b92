package omni

import (
	"maps"
	"slices"
	"strings"

	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// serverSamples adds the samples of what the server said of its own work: each
// stage_durations entry (stage_duration, tagged key), the peak memory, and each stream
// edge's first events (stream_edge_event, tagged edge and event) and hand-off time
// (stream_edge_handoff, tagged edge).
func (m *Metrics) serverSamples(r *record.Record, tags *metrics.TagSet, add func(*metrics.Metric, *metrics.TagSet, float64)) {
	for _, d := range r.Images.StageDurations {
		add(m.StageDuration, tags.With("key", d.Key), record.StageDurationMS(d.Key, d.Value))
	}
	if r.Images.PeakMemoryMB > 0 {
		add(m.PeakMemory, tags, r.Images.PeakMemoryMB)
	}
	for _, key := range r.EdgeKeys() {
		e := r.Edges[key]
		etags := tags.With("edge", key)
		for _, name := range slices.Sorted(maps.Keys(e.Values)) {
			add(m.EdgeEvent, etags.With("event", strings.TrimSuffix(name, "_ms")), e.Values[name])
		}
		if v, ok := record.EdgeHandoffMS(e); ok {
			add(m.EdgeHandoff, etags, v)
		}
	}
}
