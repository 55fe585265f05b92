package omni

import (
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// serverSamples adds the samples of what the server said of its own work: each
// stage_durations entry (stage_duration, tagged key), the peak memory, and each stream
// edge's first events (stream_edge_event, tagged edge and event) and hand-off time
// (stream_edge_handoff, tagged edge). The tag values are the server's names, bounded
// run-wide by serverTags.
func (m *Metrics) serverSamples(r *record.Record, tags *metrics.TagSet, add func(*metrics.Metric, *metrics.TagSet, float64)) {
	for _, d := range r.Images.StageDurations {
		add(m.StageDuration, tags.With("key", m.serverTags.key.value(d.Key)), record.StageDurationMS(d.Key, d.Value))
	}
	if r.Images.PeakMemoryMB > 0 {
		add(m.PeakMemory, tags, r.Images.PeakMemoryMB)
	}
	for _, key := range r.EdgeKeys() {
		e := r.Edges[key]
		etags := tags.With("edge", m.serverTags.edge.value(key))
		for _, name := range slices.Sorted(maps.Keys(e.Values)) {
			add(m.EdgeEvent, etags.With("event", m.serverTags.event.value(strings.TrimSuffix(name, "_ms"))), e.Values[name])
		}
		if v, ok := record.EdgeHandoffMS(e); ok {
			add(m.EdgeHandoff, etags, v)
		}
	}
}

// maxServerTags bounds the distinct values a run gives each tag that the server names
// (key, edge, event), as the report bounds its lists of them (report's maxServerKeys):
// a server inventing a name per request must not grow the metric series without end.
const maxServerTags = 256

// otherTag is the value of a server name past the first maxServerTags.
const otherTag = "other"

// serverTags are the bounds of the tags the server names, shared by every VU's samples.
type serverTags struct{ key, edge, event tagBound }

// tagBound keeps a tag's first maxServerTags distinct values; it is safe for concurrent
// use.
type tagBound struct {
	mu   sync.Mutex
	seen map[string]struct{}
}

// value is v if it is one of the values kept, else otherTag.
func (b *tagBound) value(v string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.seen[v]; ok {
		return v
	}
	if len(b.seen) >= maxServerTags {
		return otherTag
	}
	if b.seen == nil {
		b.seen = map[string]struct{}{}
	}
	b.seen[v] = struct{}{}
	return v
}
