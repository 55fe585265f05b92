package report

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/omnik-dev/omnik/modules/omni/record"
)

// maxServerKeys bounds the stage_durations keys and stream edges a run keeps lists of:
// a record holds at most record.MaxStages of each, but a server inventing a key per
// request must not grow the report past it.
const maxServerKeys = 256

// serverStats folds what servers said of their own work: the stage_durations profile
// (the reference's Stage Durations rows), the peak memory (its Peak Memory block) and
// the stream-edge hand-offs (omnik's rows in the Stage section).
type serverStats struct {
	budget    int
	durations map[string]series // by stage_durations key, values as sent
	// places are each key's smallest index in a profile: the rows go in that order,
	// the server's own when its profiles list the same keys (the reference lists them as
	// its first request does). An order of the values, not of the requests, so that a
	// merge of files, which folds records in another order, prints the same rows.
	places   map[string]int
	peak     series            // MB, values above 0
	handoffs map[string]series // by edge key, ms
}

func newServerStats(budget int) serverStats {
	return serverStats{budget: budget, durations: map[string]series{}, places: map[string]int{}, peak: newSeries(budget),
		handoffs: map[string]series{}}
}

// add folds one successful request.
func (s *serverStats) add(r *record.Record) {
	for i, d := range r.Images.StageDurations {
		// stage_N_gen_ms is the stage timing the Stage block already prints.
		if stageGenKey(d.Key) {
			continue
		}
		s.list(s.durations, d.Key).add(d.Value)
		if _, kept := s.durations[d.Key]; kept {
			if at, ok := s.places[d.Key]; !ok || i < at {
				s.places[d.Key] = i
			}
		}
	}
	if r.Images.PeakMemoryMB > 0 {
		s.peak.add(r.Images.PeakMemoryMB)
	}
	for k, e := range r.Edges {
		if v, ok := record.EdgeHandoffMS(e); ok {
			s.list(s.handoffs, k).add(v)
		}
	}
}

func (s *serverStats) list(m map[string]series, key string) series {
	l, ok := m[key]
	if !ok && len(m) < maxServerKeys {
		l = newSeries(s.budget)
		m[key] = l
	} else if !ok {
		return newSeries(1) // past the bound: measured, not kept
	}
	return l
}

func (s *serverStats) clone() serverStats {
	c := serverStats{budget: s.budget, durations: make(map[string]series, len(s.durations)), places: maps.Clone(s.places),
		peak: s.peak.clone(), handoffs: make(map[string]series, len(s.handoffs))}
	for k, l := range s.durations {
		c.durations[k] = l.clone()
	}
	for k, l := range s.handoffs {
		c.handoffs[k] = l.clone()
	}
	return c
}

// StageDuration is one stage_durations key over the requests that reported it, in the
// unit the key says (Unit): the rows `Mean/Median/P99 <Label> (s|ms):`.
type StageDuration struct {
	Key, Label, Unit string
	Dist             Dist // Percentiles holds P99 alone, printed when 99 is requested
}

// EdgeResult is one stream edge's hand-off time (consumer first accept − producer first
// non-empty emit), ms, over the requests that reported both events in one clock domain.
type EdgeResult struct {
	Key              string // "0->1:0"
	From, To         int
	FromName, ToName string // the stages' names, stage_<id> when no stage row named them
	Handoff          Dist
}

// results fills r's server-reported parts; stage names come from r.Stages.
func (s *serverStats) results(r *Result, ps []float64) {
	keys := slices.SortedFunc(maps.Keys(s.durations), func(a, b string) int {
		return cmp.Or(cmp.Compare(s.places[a], s.places[b]), strings.Compare(a, b))
	})
	for _, k := range keys {
		unit := " (s)"
		if strings.HasSuffix(k, "_ms") {
			unit = " (ms)"
		}
		r.StageDurations = append(r.StageDurations, StageDuration{k, durationLabel(k), unit, s.durations[k].dist([]float64{99}, 1)})
	}
	r.PeakMemory = s.peak.dist(ps, 1)
	edges := slices.Collect(maps.Keys(s.handoffs))
	record.SortEdgeKeys(edges)
	for _, k := range edges {
		from, to, _, _ := record.ParseEdge(k)
		r.Edges = append(r.Edges, EdgeResult{Key: k, From: from, To: to, FromName: r.stageName(from),
			ToName: r.stageName(to), Handoff: s.handoffs[k].dist(ps, 1)})
	}
}

// stageName is the name the Stage block prints for stage id.
func (r *Result) stageName(id int) string {
	for _, s := range r.Stages {
		if s.ID == id {
			return s.Name
		}
	}
	return "stage_" + strconv.Itoa(id)
}

// stageGenKey reports stage_N_gen_ms, which the reference leaves out of Stage Durations.
func stageGenKey(k string) bool {
	n, ok := strings.CutPrefix(k, "stage_")
	n, ok2 := strings.CutSuffix(n, "_gen_ms")
	return ok && ok2 && n != "" && strings.Trim(n, "0123456789") == ""
}

// durationLabel is the reference's display name of a stage_durations key: the
// pipeline class prefix ("Wan22I2VPipeline.") and a trailing _ms dropped, "_" and "."
// as spaces, then Python's str.title(): "text_encoder.forward" → "Text Encoder Forward".
func durationLabel(k string) string {
	if head, tail, ok := strings.Cut(k, "."); ok && strings.HasSuffix(head, "Pipeline") {
		k = tail
	}
	k = strings.TrimSuffix(k, "_ms")
	k = strings.NewReplacer("_", " ", ".", " ").Replace(k)
	return pyTitle(k)
}

// pyTitle is Python's str.title(): a cased letter after a cased one is lowered, any
// other is title-cased; digits and spaces end a word ("vae2d" → "Vae2D").
func pyTitle(s string) string {
	var b strings.Builder
	prevCased := false
	for _, c := range s {
		cased := unicode.IsUpper(c) || unicode.IsLower(c) || unicode.IsTitle(c)
		switch {
		case cased && prevCased:
			c = unicode.ToLower(c)
		case cased:
			c = unicode.ToTitle(c)
		}
		b.WriteRune(c)
		prevCased = cased
	}
	return b.String()
}

// serverBlocks prints the reference's Peak Memory block and Stage Durations rows, after
// the peak concurrency row, each only with data.
func (p *printer) serverBlocks(r *Result) {
	if r.PeakMemory.Mean > 0 {
		p.dist("Peak Memory", "PEAK_MEMORY_MB", " (MB)", r.PeakMemory)
	}
	if len(r.StageDurations) == 0 {
		return
	}
	p99 := slices.Contains(r.Percentiles, 99)
	p.header(" Stage Durations ", '-')
	for _, d := range r.StageDurations {
		p.floatRow("Mean "+d.Label+d.Unit+":", d.Dist.Mean)
		p.floatRow("Median "+d.Label+d.Unit+":", d.Dist.Median)
		if p99 {
			p.floatRow("P99 "+d.Label+d.Unit+":", d.Dist.Percentiles[0].Value)
		}
	}
}

// edges prints omnik's hand-off block of each stream edge at the end of the Stage
// section: which hand-off between stages is slow.
func (p *printer) edges(r *Result) {
	if len(r.Edges) == 0 {
		return
	}
	p.header(" Stream Edge Hand-off ", '=')
	for _, e := range r.Edges {
		p.dist("Edge "+e.Key+" ("+e.FromName+" -> "+e.ToName+")", "HANDOFF", " (ms)", e.Handoff)
	}
}
