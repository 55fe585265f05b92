// Package compare sets two runs side by side: every statistic of their Serving and Stage
// blocks and METRICS with its change, the gates a CI pipeline judges on the changes
// (--fail-on), and the warnings that say when the runs do not compare. omnik compare is
// its command line; docs/report.md describes the keys and the gate grammar.
package compare

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/modules/omni/record"
	"github.com/omnik-dev/omnik/testrun"
)

// Format is what an input file is.
type Format int

// The formats Load reads.
const (
	SummaryExport Format = iota // omnik run --summary-export FILE
	ResultFile                  // omnik run --out json=FILE[.gz]
)

func (f Format) String() string {
	if f == ResultFile {
		return "result file"
	}
	return "summary export"
}

// Input is one side of a comparison: a run's statistics and what the run was.
type Input struct {
	Path   string
	Format Format
	// Run is the summary's run block: script, load, environment. nil when an older
	// omnik wrote the summary.
	Run *testrun.RunAbout
	// Stats are the run's statistics by key.
	Stats map[string]Stat
	// Metrics are the summary's metrics as it holds them, for views that draw them.
	Metrics map[string]*metrics.MetricSummary
	// modelID is the Serving block's model_id, the model when Run's env names none.
	modelID string
}

// Load reads a result file (gzip-compressed or not) or a summary export, told apart by
// their content: a result file's first line is a {"type":…} entry, a summary export is
// one object of schema omnik.summary/v1. Anything else is an error (exit 104). What a
// result file lacked or had skipped goes to log; views, when given, see a result file's
// records (a summary export has none).
func Load(path string, log *slog.Logger, views ...record.Subscriber) (*Input, error) {
	first, err := firstValue(path)
	if err != nil {
		return nil, engine.Invalid(err)
	}
	var sniff struct {
		Schema string `json:"schema"`
		Type   string `json:"type"`
	}
	if err := json.Unmarshal(first, &sniff); err != nil || sniff.Type == "" && sniff.Schema == "" {
		return nil, engine.Invalid(fmt.Errorf("%s: %w", path, errNeither))
	}
	if sniff.Type != "" {
		s, err := testrun.Summarize(path, log, views...)
		if err != nil {
			return nil, err
		}
		// Through its JSON, so both formats read as one: what the export would hold.
		if first, err = json.Marshal(s); err != nil {
			return nil, err
		}
		return decode(path, ResultFile, first)
	}
	if !readableSummarySchema(sniff.Schema) {
		return nil, engine.Invalid(fmt.Errorf("%s: a summary of schema %q; this omnik reads %s", path, sniff.Schema, metrics.SummarySchema))
	}
	return decode(path, SummaryExport, first)
}

var errNeither = errors.New("neither a result file (omnik run --out json=FILE) nor a summary export (--summary-export FILE)")

// firstValue is the file's first JSON value, gunzipped: a result file's Run line, or a
// summary export whole. A result file is never read to its end here.
func firstValue(path string) (json.RawMessage, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err // it names the file
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var r io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w (broken gzip header: %v)", path, errNeither, err)
		}
		r = zr
	}
	var v json.RawMessage
	if err := json.NewDecoder(r).Decode(&v); err != nil {
		return nil, fmt.Errorf("%s: %w (%v)", path, errNeither, err)
	}
	return v, nil
}

// readableSummarySchema accepts metrics.SummarySchema and its minor versions, which only
// add keys.
func readableSummarySchema(s string) bool {
	rest, ok := strings.CutPrefix(s, metrics.SummarySchema)
	return ok && (rest == "" || rest[0] == '.')
}

// summaryJSON is what compare reads of a summary's JSON form.
type summaryJSON struct {
	Metrics  map[string]*metrics.MetricSummary `json:"metrics"`
	Run      *testrun.RunAbout                 `json:"run"`
	Sections struct {
		Omni map[string]json.RawMessage `json:"omni"`
	} `json:"sections"`
}

func decode(path string, format Format, data []byte) (*Input, error) {
	var s summaryJSON
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, engine.Invalid(fmt.Errorf("%s: not a summary export: %w", path, err))
	}
	in := &Input{Path: path, Format: format, Run: s.Run, Stats: map[string]Stat{}, Metrics: s.Metrics}
	for name, m := range s.Metrics {
		in.add(metricStats(name, m)...)
	}
	for name, raw := range s.Sections.Omni {
		if name == failuresKey {
			var byKind map[string]float64
			_ = json.Unmarshal(raw, &byKind)
			for kind, n := range byKind {
				in.add(failureStat(kind, n))
			}
			continue
		}
		var block map[string]any
		if json.Unmarshal(raw, &block) != nil {
			continue
		}
		scenario := name
		if name == "all" {
			scenario = ""
			in.modelID, _ = block["model_id"].(string)
		}
		in.add(servingStats(scenario, block)...)
	}
	return in, nil
}

func (in *Input) add(stats ...Stat) {
	for _, s := range stats {
		in.Stats[s.Key] = s
	}
}

// model is the model the run asked for, "" for the server's first.
func (in *Input) model() string {
	if in.Run != nil && in.Run.Env != nil && in.Run.Env.Model != "" {
		return in.Run.Env.Model
	}
	return in.modelID
}
