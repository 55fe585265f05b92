package js

import (
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/dop251/goja"
	"github.com/omnik-dev/omnik/metrics"
)

// summaryModule is `import { textSummary } from 'omnik/summary'`, the counterpart of
// k6's jslib k6-summary.
func summaryModule(vu *VU) (*Exports, error) {
	return &Exports{Named: map[string]any{"textSummary": vu.textSummary}}, nil
}

// textSummary renders the data handleSummary received as the text summary the CLI
// prints: thresholds, checks and metrics from data (edits included), and the sections
// (the Serving/Stage blocks) that data.sections still names, from the run itself.
// opts.enableColors overrides data.options.noColor; k6's opts.indent is not used, the
// layout being the CLI's.
func (vu *VU) textSummary(data, opts goja.Value) string {
	defer func() {
		// A data shape nothing above foresaw is the script's TypeError, not a crash of
		// the run after its end.
		if p := recover(); p != nil {
			if _, isRuntime := p.(runtime.Error); isRuntime {
				panic(vu.rt.NewTypeError("textSummary(data): %v", p))
			}
			panic(p)
		}
	}()
	o, ok := data.(*goja.Object)
	if !ok {
		panic(vu.rt.NewTypeError("textSummary(data): data must be the object handleSummary received"))
	}
	raw, err := o.MarshalJSON()
	if err != nil {
		panic(vu.rt.NewTypeError("textSummary(data): %v", err))
	}
	s, err := decodeSummary(raw, vu.runner.summarySections)
	if err != nil {
		panic(vu.rt.NewTypeError("textSummary(data): %v", err))
	}
	if po, ok := opts.(*goja.Object); ok {
		if c := po.Get("enableColors"); !isNullish(c) {
			s.Options.NoColor = !c.ToBoolean()
		}
	}
	var b strings.Builder
	if err := s.WriteText(&b); err != nil {
		panic(vu.rt.NewGoError(err))
	}
	return b.String()
}

// decodeSummary reads back the JSON of a metrics.Summary; sections are those of the run
// whose name data.sections lists, since their text cannot be rebuilt from their JSON.
func decodeSummary(raw []byte, sections []metrics.Section) (*metrics.Summary, error) {
	var s metrics.Summary
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	var extra struct {
		Options struct {
			TrendStats []string `json:"summaryTrendStats"`
		} `json:"options"`
		Sections map[string]json.RawMessage `json:"sections"`
	}
	if err := json.Unmarshal(raw, &extra); err != nil {
		return nil, err
	}
	stats, err := metrics.ParseTrendStats(extra.Options.TrendStats)
	if err != nil {
		return nil, fmt.Errorf("options.summaryTrendStats: %w", err)
	}
	s.Options.TrendStats = stats
	// The script may have nulled what the renderer walks: treat those as absent.
	if s.RootGroup == nil {
		s.RootGroup = &metrics.GroupSummary{}
	}
	pruneGroups(s.RootGroup)
	for name, m := range s.Metrics {
		if m == nil {
			delete(s.Metrics, name)
		}
	}
	for _, sec := range sections {
		if _, ok := extra.Sections[sec.Name()]; ok {
			s.Sections = append(s.Sections, sec)
		}
	}
	return &s, nil
}

// pruneGroups drops null subgroups, all the way down.
func pruneGroups(g *metrics.GroupSummary) {
	g.Groups = slices.DeleteFunc(g.Groups, func(sub *metrics.GroupSummary) bool { return sub == nil })
	for _, sub := range g.Groups {
		pruneGroups(sub)
	}
}
