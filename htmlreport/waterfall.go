package htmlreport

import (
	"cmp"
	"maps"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/record"
)

// waterfallCount is how many of the slowest requests, and how many sampled ones, get a
// waterfall: enough to see a pattern, few enough that the report stays quick.
const waterfallCount = 8

// maxChunkMarks bounds the chunk marks of one waterfall; a longer stream keeps an even
// spread of them (and says how many it had).
const maxChunkMarks = 400

// Waterfall is one request's events on its own time axis (ms from when it was sent):
// what the client saw, and what the server said each stage took.
type Waterfall struct {
	Why       string             `json:"why"` // "slowest" or "sample"
	Scenario  string             `json:"scenario,omitempty"`
	Endpoint  string             `json:"endpoint"`
	RequestID string             `json:"request_id,omitempty"`
	StartS    Float              `json:"start_s"` // on the run's timeline
	E2ELMS    Float              `json:"e2el_ms"`
	Marks     map[string]Float   `json:"marks"`  // sent, first_text, first_audio, first_image, end
	Chunks    map[string][]Float `json:"chunks"` // text, audio, image: each chunk's arrival
	Counts    map[string]int     `json:"counts"` // chunks by modality before thinning
	Stages    []WaterfallStage   `json:"stages"`
	Tags      map[string]string  `json:"tags,omitempty"`
}

// WaterfallStage is one server stage of a request. The server reports how long the stage
// ran and when its first output came (from when it accepted the request), not when the
// stage was submitted, so Start is estimated: the later of the previous stage's first
// output (a streaming pipeline hands over there) and first output − gen time (a stage
// that outputs once, at its end).
type WaterfallStage struct {
	ID            int    `json:"id"`
	Name          string `json:"name"`
	Kind          string `json:"kind"`
	StartMS       Float  `json:"start_ms"`
	GenMS         Float  `json:"gen_ms"`
	FirstOutputMS Float  `json:"first_output_ms,omitempty"`
	PostprocessMS Float  `json:"postprocess_ms,omitempty"`
}

// waterfalls picks the slowest successful requests of each scenario, so one slow
// endpoint does not hide the others, and a uniform sample of all of them.
type waterfalls struct {
	slowest   map[string][]Waterfall // by scenario: ascending E2EL, at most waterfallCount
	scenarios map[string]bool        // at most maxScenarios have their slowest kept
	sample    []Waterfall
	seen      int64
	rng       *rand.Rand
}

func newWaterfalls() *waterfalls {
	return &waterfalls{slowest: map[string][]Waterfall{}, scenarios: map[string]bool{}, rng: rand.New(rand.NewPCG(3, 4))}
}

func (w *waterfalls) add(r *record.Record) {
	if !r.OK() {
		return
	}
	e2el := Float(record.Millis(r.End))
	if top := w.slowest[r.Scenario]; admit(w.scenarios, r.Scenario, maxScenarios) && (len(top) < waterfallCount || e2el > top[0].E2ELMS) {
		i, _ := slices.BinarySearchFunc(top, e2el, func(a Waterfall, v Float) int { return cmp.Compare(a.E2ELMS, v) })
		top = slices.Insert(top, i, waterfallOf(r, "slowest"))
		if len(top) > waterfallCount {
			top = top[1:]
		}
		w.slowest[r.Scenario] = top
	}
	w.seen++
	if len(w.sample) < waterfallCount {
		w.sample = append(w.sample, waterfallOf(r, "sample"))
	} else if j := w.rng.Int64N(w.seen); j < waterfallCount {
		w.sample[j] = waterfallOf(r, "sample")
	}
}

// list is the waterfallCount slowest, taken from each scenario in turn (slowest first),
// then the sample in the order of the run.
func (w *waterfalls) list() []Waterfall {
	var out []Waterfall
	queues := map[string][]Waterfall{}
	for name, top := range w.slowest {
		queues[name] = slices.Clone(top)
	}
	for len(out) < waterfallCount && len(queues) > 0 {
		var round []Waterfall
		for _, name := range slices.Sorted(maps.Keys(queues)) {
			q := queues[name]
			round = append(round, q[len(q)-1])
			if len(q) == 1 {
				delete(queues, name)
			} else {
				queues[name] = q[:len(q)-1]
			}
		}
		slices.SortStableFunc(round, func(a, b Waterfall) int { return cmp.Compare(b.E2ELMS, a.E2ELMS) })
		out = append(out, round[:min(len(round), waterfallCount-len(out))]...)
	}
	// A sampled request may be among the slowest: drawn once.
	sample := slices.DeleteFunc(slices.Clone(w.sample), func(s Waterfall) bool {
		return slices.ContainsFunc(out, func(o Waterfall) bool { return o.same(s) })
	})
	slices.SortStableFunc(sample, func(a, b Waterfall) int { return cmp.Compare(a.StartS, b.StartS) })
	return append(out, sample...)
}

// same reports whether two waterfalls are of one request.
func (w Waterfall) same(o Waterfall) bool {
	return w.StartS == o.StartS && w.E2ELMS == o.E2ELMS && w.Scenario == o.Scenario && w.Endpoint == o.Endpoint && w.RequestID == o.RequestID
}

func waterfallOf(r *record.Record, why string) Waterfall {
	wf := Waterfall{Why: why, Scenario: r.Scenario, Endpoint: r.Endpoint, RequestID: r.RequestID,
		StartS: Float(r.Offset.Seconds()), E2ELMS: Float(record.Millis(r.End)), Tags: r.Tags,
		Marks: map[string]Float{"sent": 0, "end": Float(record.Millis(r.End))}, Chunks: map[string][]Float{}, Counts: map[string]int{}}
	text := make([]time.Duration, len(r.TextChunks))
	for i, c := range r.TextChunks {
		text[i] = c.At
	}
	audio := make([]time.Duration, len(r.AudioChunks))
	for i, c := range r.AudioChunks {
		audio[i] = c.At
	}
	for name, times := range map[string][]time.Duration{"text": text, "audio": audio, "image": r.ImageTimes} {
		if len(times) == 0 {
			continue
		}
		wf.Marks["first_"+name] = Float(record.Millis(times[0]))
		wf.Counts[name] = len(times)
		wf.Chunks[name] = thin(times)
	}
	wf.Stages = stagesOf(r)
	return wf
}

// thin keeps at most maxChunkMarks evenly spread chunk times, the first and last included.
func thin(times []time.Duration) []Float {
	n := min(len(times), maxChunkMarks)
	out := make([]Float, n)
	for i := range n {
		j := i
		if len(times) > n {
			j = i * (len(times) - 1) / (n - 1)
		}
		out[i] = Float(record.Millis(times[j]))
	}
	return out
}

func stagesOf(r *record.Record) []WaterfallStage {
	stages := make([]WaterfallStage, 0, len(r.Stages))
	for _, st := range r.Stages {
		stages = append(stages, WaterfallStage{ID: st.ID, Name: st.DisplayName(), Kind: record.KindOf(st.FinalOutputType, st.OutputUnitType).String(),
			GenMS: Float(st.Values["stage_gen_time_ms"]), FirstOutputMS: Float(st.Values["serving_time_to_first_output_ms"]),
			PostprocessMS: Float(st.Values["postprocess_time_ms"])})
	}
	slices.SortFunc(stages, func(a, b WaterfallStage) int { return cmp.Compare(a.ID, b.ID) })
	prevFirst := Float(0)
	for i := range stages {
		s := &stages[i]
		s.StartMS = max(prevFirst, s.FirstOutputMS-s.GenMS, 0)
		if s.FirstOutputMS > 0 {
			prevFirst = s.FirstOutputMS
		}
	}
	return stages
}
