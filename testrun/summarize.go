package testrun

import (
	"log/slog"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// Summarize returns the end-of-test summary of a result file, gzip-compressed or not, as
// Report prints it and --summary-export writes it, and prints nothing: what the file
// lacked or had skipped goes to log. omnik compare reads result files with it. An error
// (exit 104) means the file could not be read as omnik results. views, when given, are fed
// the file's records after the summary's own views (the comparison page's distributions).
func Summarize(path string, log *slog.Logger, views ...record.Subscriber) (*metrics.Summary, error) {
	rp := newReporter(ReportOptions{Path: path, NoColor: true, Log: log, Subscribers: views})
	if err := rp.read(path, nil, 0); err != nil {
		return nil, engine.Invalid(err)
	}
	s, _ := rp.summarize()
	return s, nil
}
