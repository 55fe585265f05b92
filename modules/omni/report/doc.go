// Package report turns omni request measurements into the "Serving Benchmark Result" and
// "Stage Benchmark Result" blocks of `vllm bench serve --omni --print-stage`, byte for byte,
// and into the `--save-result` JSON of the same tool.
//
// The flow is an Accumulator (requests folded one by one → Result), or Aggregate on a
// list, then Render or SaveResult (Result → text or JSON). An Accumulator keeps no
// request, so a soak test's memory stays bounded; accumulators merge, so a caller can
// keep one per scenario and print an overall block too. Definitions follow
// shared/reference/omni-metrics.md.
package report
