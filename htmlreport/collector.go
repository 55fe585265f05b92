// Package htmlreport turns a run's result stream into one self-contained HTML file: the
// summary's tables, time series, distributions, per-stage views, request waterfalls and,
// when the run read it, the server's own /metrics page, drawn by Apache ECharts, which
// is embedded with its license. Its Collector is a
// subscriber of the record stream like every other view, live (--out html=FILE) and from
// a result file (omnik report --html); its memory is bounded whatever the run's length.
package htmlreport

import (
	"sync"

	"github.com/omnik-dev/omnik/modules/omni/record"
)

// Collector is the report's view of the record stream.
type Collector struct {
	mu         sync.Mutex
	timeline   *timeline
	dists      *distributions
	waterfalls *waterfalls
	failures   failures
	anomalies  failures // by anomaly kind: the requests that succeeded with one
	records    int64
}

// NewCollector returns an empty collector.
func NewCollector() *Collector {
	return &Collector{timeline: newTimeline(), dists: newDistributions(), waterfalls: newWaterfalls(), failures: failures{}, anomalies: failures{}}
}

// Add implements record.Subscriber.
func (c *Collector) Add(r *record.Record) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.records++
	c.timeline.add(r)
	c.dists.add(r)
	c.waterfalls.add(r)
	c.failures.add(c.anomalies, r)
}
