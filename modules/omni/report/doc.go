// Package report turns omni request measurements into the "Serving Benchmark Result" and
// "Stage Benchmark Result" blocks of `vllm bench serve --omni --print-stage`, byte for byte,
// and into the `--save-result` JSON of the same tool.
//
// The flow is Aggregate (requests → Result) then Render or SaveResult (Result → text or
// JSON). Aggregate works on any subset of requests, so a caller can print an overall block
// and one block per scenario. Definitions follow shared/reference/omni-metrics.md.
package report
