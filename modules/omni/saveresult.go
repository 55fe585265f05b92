package omni

import (
	"github.com/omnik-dev/omnik/modules/omni/report"
)

// SaveResult is the `--save-result` JSON of the whole run (with `--save-detailed`'s
// per-request arrays when detailed) and vllm's default file name for it; ok is false when
// no request was made.
func (m *Module) SaveResult(opts SectionOptions, info report.RunInfo, detailed bool) (result map[string]any, filename string, ok bool) {
	all, _ := m.log.all()
	if len(all) == 0 {
		return nil, "", false
	}
	r := report.Aggregate(all, span(all), opts.aggregate())
	result = report.SaveResult(r, info, opts.Metrics)
	if detailed {
		report.SaveDetailed(result, all)
	}
	return result, report.ResultFilename(r, info), true
}
