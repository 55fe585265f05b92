// Package servermetrics is the server's own view of a run: it scrapes the server's
// Prometheus text page (vLLM's and vLLM-Omni's /metrics) before, during and after the
// run, folds the pages into a window (gauges as mean and max, counters as increase and
// rate, histograms as quantiles of their bucket increases), judges `server:` thresholds
// on it, and prints the Server metrics block with a reconciliation table that puts each
// client metric beside its server twin.
//
// Scrapes are part of the result stream: each becomes a ServerScrape entry of the result
// file (only the values that changed), so omnik report prints the same block offline.
// docs/prometheus.md has the formulas.
package servermetrics
