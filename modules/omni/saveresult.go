package omni

import (
	"github.com/omnik-dev/omnik/modules/omni/report"
)

// SaveResult is the `--save-result` JSON of the whole run (with `--save-detailed`'s
// per-request arrays when the module keeps requests, SectionOptions.Detailed) and vllm's
// default file name for it; ok is false when no request was made.
func (m *Module) SaveResult(info report.RunInfo) (result map[string]any, filename string, ok bool) {
	l := m.log
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.byScenario) == 0 {
		return nil, "", false
	}
	_, all := l.scenarios()
	r := all.acc.Result(all.span())
	metadata := info.Metadata
	info.Metadata = nil
	result = report.SaveResult(r, info, l.opts.Metrics)
	addMetadata(result, metadata)
	if l.opts.Detailed {
		report.SaveDetailed(result, all.reqs)
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
