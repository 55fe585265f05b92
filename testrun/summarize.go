package testrun

import (
	"log/slog"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/metrics"
)

// Summarize returns the end-of-test summary of a result file, gzip-compressed or not, as
// Report prints it and --summary-export writes it, and prints nothing: what the file
// lacked or had skipped goes to log. omnik compare reads result files with it. An error
// (exit 104) means the file could not be read as omnik results.
func Summarize(path string, log *slog.Logger) (*metrics.Summary, error) {
	rp := newReporter(ReportOptions{Path: path, NoColor: true, Log: log})
	if err := rp.read(path, nil, 0); err != nil {
		return nil, engine.Invalid(err)
	}
	s, _ := rp.summarize()
	return s, nil
}
