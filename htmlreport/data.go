package htmlreport

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/omnik-dev/omnik/metrics"
)

// Schema versions the report's data section.
const Schema = "omnik.report/v1"

// Data is everything the report draws, as it is embedded in the page: the summary's
// tables and the collector's series, distributions and waterfalls.
type Data struct {
	Schema     string                     `json:"schema"`
	Title      string                     `json:"title"`
	Started    time.Time                  `json:"started"`
	DurationS  Float                      `json:"duration_s"`
	Records    int64                      `json:"records"`
	Run        json.RawMessage            `json:"run,omitempty"` // the summary's run block: script, load, environment
	Thresholds []metrics.ThresholdSummary `json:"thresholds"`
	Checks     []metrics.CheckSummary     `json:"checks"`
	Metrics    []Metric                   `json:"metrics"`
	Blocks     []Row                      `json:"blocks"`
	Failures   []Failure                  `json:"failures"`
	Anomalies  []Failure                  `json:"anomalies"`
	Timeline   Timeline                   `json:"timeline"`
	Dists      []Distribution             `json:"distributions"`
	Stages     []Stage                    `json:"stages"`
	Waterfalls []Waterfall                `json:"waterfalls"`
	// Server is what the server's /metrics said, when the run read it; absent otherwise.
	Server *Server `json:"server,omitempty"`
}

// Metric is one METRICS row.
type Metric struct {
	Name string `json:"name"`
	*metrics.MetricSummary
}

// Timeline is the run per bucket: counts, rates and latency bands.
type Timeline struct {
	BucketS     Float            `json:"bucket_s"`
	T           []Float          `json:"t"` // each bucket's start, s on the run's timeline
	Started     []int64          `json:"started"`
	Finished    []int64          `json:"finished"`
	Failed      []int64          `json:"failed"`
	Interrupted []int64          `json:"interrupted"`
	Concurrency []Float          `json:"concurrency"`         // mean requests in flight
	Tokens      []Float          `json:"output_tokens_per_s"` // output tokens that arrived, per second
	Audio       []Float          `json:"audio_s_per_s"`       // audio seconds that arrived, per second
	Bands       map[string]Bands `json:"latency"`             // by measure, from the requests started in the bucket
	// Outside counts the request starts and ends that fall after the series' end (more
	// than 5 s after the run's duration): a record's claim the axis does not follow.
	Outside int64 `json:"outside,omitempty"`
}

// Bands are a latency's p50, p90 and p99 per bucket, null where no request had it.
type Bands struct {
	P50 []Float `json:"p50"`
	P90 []Float `json:"p90"`
	P99 []Float `json:"p99"`
}

// Stage is one server stage side by side with the others: its generation time and its
// time to first output (TTFT for a text stage, TTFP for audio, TTFC for an internal
// stream), from the server's stage metrics.
type Stage struct {
	Name        string `json:"name"`
	Kind        string `json:"kind"`
	FirstOutput string `json:"first_output"` // what the stage's first output is called
	Gen         *Stats `json:"gen_ms,omitempty"`
	Serving     *Stats `json:"serving_ttfo_ms,omitempty"`
	Postprocess *Stats `json:"postprocess_ms,omitempty"`
}

// Data is the report of the records collected so far and the summary of their run.
func (c *Collector) Data(s *metrics.Summary, started time.Time) *Data {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := &Data{Schema: Schema, Started: started.UTC(), DurationS: Float(s.TestRunDurationMs / 1000), Records: c.records,
		Run: s.Run, Thresholds: orEmpty(s.Thresholds), Checks: orEmpty(s.Checks), Metrics: []Metric{}, Blocks: []Row{},
		Failures: c.failures.list(), Anomalies: c.anomalies.list(), Timeline: c.timeline.series(time.Duration(s.TestRunDurationMs * float64(time.Millisecond))),
		Dists: orEmpty(c.dists.list()), Stages: c.dists.stages(), Waterfalls: orEmpty(c.waterfalls.list())}
	d.Title = title(s.Run)
	for _, name := range slices.Sorted(maps.Keys(s.Metrics)) {
		d.Metrics = append(d.Metrics, Metric{name, s.Metrics[name]})
	}
	for _, sec := range s.Sections {
		if sec.Name() == serverSection {
			d.Server = serverOf(sec)
			continue
		}
		var b bytes.Buffer
		if sec.Text(&b) == nil {
			d.Blocks = append(d.Blocks, parseBlocks(b.String())...)
		}
	}
	return d
}

// orEmpty is s, or an empty slice for nil: the page reads lists, never null.
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func title(run json.RawMessage) string {
	var about struct {
		Script string `json:"script"`
	}
	if json.Unmarshal(run, &about) == nil && about.Script != "" {
		return filepath.Base(about.Script)
	}
	return "omnik run"
}

// stages lists the server's stages by id with their distributions' statistics.
func (d *distributions) stages() []Stage {
	out := []Stage{}
	for _, name := range slices.SortedFunc(maps.Keys(d.stageInfo), func(a, b string) int {
		return cmp.Or(cmp.Compare(d.stageInfo[a].id, d.stageInfo[b].id), strings.Compare(a, b))
	}) {
		kind := d.stageInfo[name].kind.String()
		st := Stage{Name: name, Kind: kind, FirstOutput: firstOutputName(kind)}
		get := func(measure string) *Stats {
			if s := d.sinks[distKey{measure, groupStage + name}]; s != nil {
				v := statsOf(s)
				return &v
			}
			return nil
		}
		st.Gen, st.Serving, st.Postprocess = get("stage_gen_time"), get("stage_serving_ttfo"), get("stage_postprocess")
		out = append(out, st)
	}
	return out
}

// firstOutputName is what the Stage block calls a stage's Serving time to first output.
func firstOutputName(kind string) string {
	switch kind {
	case "text":
		return "Serving TTFT"
	case "audio":
		return "Serving TTFP"
	case "stream":
		return "Serving TTFC"
	}
	return "Serving time to first output"
}
