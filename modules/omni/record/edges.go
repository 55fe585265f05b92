package record

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
)

// Stream-edge first events (vllm-project/vllm-omni #6472, vllm_omni/metrics/stream_edge.py):
// each hand-off between two stages reports when its producer first emitted something,
// when the first send completed, and when the consumer first accepted and first output
// something, in elapsed ms from an origin its clock domain names. The schema is not final
// upstream: unknown fields are kept if numeric, unknown keys are ignored.

// Edge event names, the snapshot's keys without _ms.
const (
	EdgeProducerEmit   = "producer_first_nonempty_emit"
	EdgeSendComplete   = "edge_first_send_complete"
	EdgeConsumerAccept = "consumer_first_accept"
	EdgeConsumerOutput = "consumer_first_nonempty_output"
)

// maxEdgeEvents bounds the events kept of one edge, and maxClockName the length of a
// clock domain's name: a snapshot has four events of one short name each.
const (
	maxEdgeEvents = 16
	maxClockName  = 64
)

// ParseEdge reads an edge key "{from}->{to}:{segment}" of non-negative stage ids.
func ParseEdge(key string) (from, to, segment int, ok bool) {
	head, seg, found := strings.Cut(key, ":")
	f, t, arrow := strings.Cut(head, "->")
	if !found || !arrow || len(key) > 32 {
		return 0, 0, 0, false
	}
	var errs [3]error
	from, errs[0] = canonicalInt(f)
	to, errs[1] = canonicalInt(t)
	segment, errs[2] = canonicalInt(seg)
	for _, err := range errs {
		if err != nil {
			return 0, 0, 0, false
		}
	}
	return from, to, segment, from != to
}

// canonicalInt reads a stage id written one way only, digits without a sign or a
// leading zero, so that equal edges have equal keys ("+0" and "00" are not "0").
func canonicalInt(s string) (int, error) {
	if s == "" || (len(s) > 1 && s[0] == '0') || strings.Trim(s, "0123456789") != "" {
		return 0, fmt.Errorf("stage id %q: want canonical digits", s)
	}
	return strconv.Atoi(s)
}

// onEdges keeps a snapshot's edges, each replacing the one of the same key (a snapshot
// holds every edge so far): events as elapsed ms, their clock domains, nothing else.
// Keys that are not edges are ignored; an event that no clock can have is dropped and
// flagged.
func (b *Builder) onEdges(edges chunk.Edges) {
	clean := make(map[string]chunk.Edge, len(edges))
	for key, e := range edges {
		if _, _, _, ok := ParseEdge(key); !ok {
			continue
		}
		kept := chunk.Edge{Values: map[string]float64{}}
		for name, v := range e.Values {
			if !strings.HasSuffix(name, "_ms") || len(kept.Values) >= maxEdgeEvents {
				continue
			}
			if math.IsNaN(v) || v < 0 || v > MaxStageValue {
				b.Flag(AnomalyStageValue, fmt.Sprintf("stream edge %s: %s %g is no elapsed time; dropped", key, name, v))
				continue
			}
			kept.Values[name] = v
		}
		for event, clock := range e.Clocks {
			if _, ok := kept.Values[event+"_ms"]; ok {
				if kept.Clocks == nil {
					kept.Clocks = map[string]string{}
				}
				kept.Clocks[event] = Cut(clock, maxClockName)
			}
		}
		clean[key] = kept
	}
	if len(clean) == 0 {
		return
	}
	if b.r.Edges == nil {
		b.r.Edges = make(map[string]chunk.Edge, len(clean))
	}
	mergeBounded(b, b.r.Edges, clean)
}

// EdgeEventMS is one event of an edge in ms, when the server saw it.
func EdgeEventMS(e chunk.Edge, event string) (float64, bool) {
	v, ok := e.Values[event+"_ms"]
	return v, ok
}

// EdgeHandoffMS is an edge's hand-off time: from the producer's first non-empty emit to
// the consumer's first accept. As upstream derives a delta, only when both events share
// a clock domain (or neither names one) and the consumer did not accept before the
// producer emitted.
func EdgeHandoffMS(e chunk.Edge) (float64, bool) {
	emit, ok1 := EdgeEventMS(e, EdgeProducerEmit)
	accept, ok2 := EdgeEventMS(e, EdgeConsumerAccept)
	if !ok1 || !ok2 || e.Clocks[EdgeProducerEmit] != e.Clocks[EdgeConsumerAccept] || accept < emit {
		return 0, false
	}
	return accept - emit, true
}

// EdgeKeys returns a record's edge keys in order of their from stage, to stage and
// segment.
func (r *Record) EdgeKeys() []string {
	keys := make([]string, 0, len(r.Edges))
	for k := range r.Edges {
		keys = append(keys, k)
	}
	SortEdgeKeys(keys)
	return keys
}

// SortEdgeKeys sorts edge keys by from stage, to stage and segment.
func SortEdgeKeys(keys []string) {
	slices.SortFunc(keys, func(a, b string) int {
		fa, ta, sa, _ := ParseEdge(a)
		fb, tb, sb, _ := ParseEdge(b)
		return cmp.Or(cmp.Compare(fa, fb), cmp.Compare(ta, tb), cmp.Compare(sa, sb), strings.Compare(a, b))
	})
}

// StageDurationMS is a stage_durations value in ms: the key says its unit, ms when it
// ends in _ms and seconds otherwise, as the reference labels it.
func StageDurationMS(key string, v float64) float64 {
	if strings.HasSuffix(key, "_ms") {
		return v
	}
	return v * 1000
}
