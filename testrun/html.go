package testrun

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/omnik-dev/omnik/htmlreport"
	"github.com/omnik-dev/omnik/metrics"
)

// htmlReports are the HTML reports a run or a re-report writes at its end, and the
// collector that feeds them from the record stream.
type htmlReports struct {
	paths     []string
	collector *htmlreport.Collector
}

// splitHTMLOuts takes the --out html=FILE specs out of outs: they are views of the
// record stream written once at the end, not metric outputs.
func splitHTMLOuts(outs []string) (rest []string, h *htmlReports, err error) {
	for _, s := range outs {
		path, ok := strings.CutPrefix(s, "html=")
		if !ok {
			rest = append(rest, s)
			continue
		}
		if path == "" {
			return nil, nil, fmt.Errorf("--out html=FILE: the file is missing")
		}
		h = h.with(path)
	}
	return rest, h, nil
}

func (h *htmlReports) with(path string) *htmlReports {
	if h == nil {
		h = &htmlReports{collector: htmlreport.NewCollector()}
	}
	h.paths = append(h.paths, path)
	return h
}

// check makes sure every report can be written, before the run: a wrong path is a
// usage error at once, not a lost report after an hour of load. It creates the files
// (and their directories) and leaves an existing file as it is until the end.
func (h *htmlReports) check() error {
	if h == nil {
		return nil
	}
	for _, path := range h.paths {
		if err := makeDir(path); err != nil {
			return fmt.Errorf("HTML report: %w", err)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			return fmt.Errorf("HTML report: %w", err)
		}
		f.Close()
	}
	return nil
}

// write writes every report of the run summarized by s, which started at started, and
// says where and how large each is: a report too large to open is worth knowing about.
func (h *htmlReports) write(s *metrics.Summary, started time.Time, log interface {
	Info(string, ...any)
	Error(string, ...any)
}) {
	if h == nil {
		return
	}
	data := h.collector.Data(s, started)
	for _, path := range h.paths {
		if err := WriteFile(path, data.WriteHTML); err != nil {
			log.Error("HTML report", "path", path, "err", err)
			continue
		}
		log.Info(fmt.Sprintf("HTML report: %s (%s)", path, SizeOf(path)))
	}
}
