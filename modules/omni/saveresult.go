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
	metadata := info.Metadata
	info.Metadata = nil
	result = report.SaveResult(r, info, opts.Metrics)
	addMetadata(result, metadata)
	if detailed {
		report.SaveDetailed(result, all)
	}
	return result, report.ResultFilename(r, info), true
}

// metadataReplaces are the keys vllm writes before the `--metadata` pairs, so a pair of
// the same name replaces them; every later key (traffic, results, omnik's) wins over a
// pair, as in vllm's `{**result_json, **benchmark_result}`.
var metadataReplaces = map[string]bool{
	"date": true, "endpoint_type": true, "backend": true, "label": true,
	"model_id": true, "tokenizer_id": true, "num_prompts": true,
}

func addMetadata(result map[string]any, metadata map[string]string) {
	for k, v := range metadata {
		if _, taken := result[k]; taken && !metadataReplaces[k] {
			continue
		}
		result[k] = v
	}
}
