// Package report turns request records into the "Serving Benchmark Result" and "Stage
// Benchmark Result" blocks of `vllm bench serve --omni --print-stage`, byte for byte, and
// into the `--save-result` JSON of the same tool.
//
// Section is the view of a run's record stream: it folds each record into an
// Accumulator for the whole run (and one per scenario), which keeps no request, so a soak
// test's memory stays bounded. Its distributions are filled from record.Measures into the
// metrics package's Trend sinks, so a printed row and a threshold on the same metric are
// the same number. Render and SaveResult turn a Result into text or JSON. Definitions
// follow shared/reference/omni-metrics.md; docs/bench.md lists where omnik differs.
package report
