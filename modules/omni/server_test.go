package omni

import (
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/modules/omni/chunk"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// serverNamed is a record whose stage_durations key, edge and edge event are named by n.
func serverNamed(n int) *record.Record {
	s := strconv.Itoa(n)
	return &record.Record{Endpoint: record.EndpointSpeech, Status: 200, Start: time.Now(), End: time.Second,
		Images: record.Images{StageDurations: chunk.Durations{{Key: "k" + s, Value: 0.5}}},
		Edges: map[string]chunk.Edge{"0->1:" + s: {Values: map[string]float64{"e" + s + "_ms": 3, record.EdgeProducerEmit + "_ms": 1,
			record.EdgeConsumerAccept + "_ms": 2}}}}
}

// The tags the server names keep their first maxServerTags values run-wide, from any
// number of VUs at once; later names are tagged other, earlier ones keep theirs.
func TestServerNamedTagsAreBoundedRunWide(t *testing.T) {
	t.Parallel()
	m := RegisterMetrics(metrics.NewRegistry())
	tagOf := func(r *record.Record, metric *metrics.Metric, tag string) []string {
		var out []string
		for _, s := range m.samples(r) {
			if s.Metric == metric {
				v, _ := s.Tags.Get(tag)
				out = append(out, v)
			}
		}
		return out
	}
	// The first maxServerTags records name maxServerTags keys and edges, and one more
	// event each beside the two hand-off events.
	for n := range maxServerTags - 2 {
		m.samples(serverNamed(n))
	}
	var wg sync.WaitGroup
	for n := maxServerTags; n < 4*maxServerTags; n++ {
		wg.Add(1)
		go func() { defer wg.Done(); m.samples(serverNamed(n)) }()
	}
	wg.Wait()
	late := serverNamed(5 * maxServerTags)
	if k := tagOf(late, m.StageDuration, "key"); len(k) != 1 || k[0] != otherTag {
		t.Errorf("a late stage_duration key tagged %v, want other", k)
	}
	for _, e := range tagOf(late, m.EdgeHandoff, "edge") {
		if e != otherTag {
			t.Errorf("a late edge tagged %q, want other", e)
		}
	}
	events := map[string]bool{}
	for _, e := range tagOf(late, m.EdgeEvent, "event") {
		events[e] = true
	}
	if !events[otherTag] || !events[record.EdgeProducerEmit] || len(events) != 3 {
		t.Errorf("a late edge's events tagged %v, want other beside the known hand-off events", events)
	}
	early := serverNamed(7)
	if k, e := tagOf(early, m.StageDuration, "key"), tagOf(early, m.EdgeHandoff, "edge"); len(k) != 1 || k[0] != "k7" || len(e) != 1 || e[0] != "0->1:7" {
		t.Errorf("an early record tagged key %v edge %v, want its own names", k, e)
	}
	distinct := map[string]bool{}
	for n := range 5 * maxServerTags {
		for _, k := range tagOf(serverNamed(n), m.StageDuration, "key") {
			distinct[k] = true
		}
	}
	if len(distinct) != maxServerTags+1 {
		t.Errorf("%d distinct stage_duration keys, want %d and other", len(distinct), maxServerTags)
	}
}
