package compare

import (
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/htmlreport"
	"github.com/omnik-dev/omnik/modules/omni/record"
	"github.com/omnik-dev/omnik/testrun"
)

// Options are omnik compare's.
type Options struct {
	Base, New string   // result files or summary exports
	FailOn    []string // gates (ParseGate)
	// Only keeps the rows whose key contains one of these; gates read every row.
	Only    []string
	JSON    string // also write the comparison as JSON to this file
	HTML    string // also write the comparison page, both runs' distributions overlaid
	NoColor bool

	Stdout io.Writer
	Log    *slog.Logger
}

// Report prints the comparison of two runs with the warnings that they may not compare,
// and judges the gates on it: exit 99 when one is crossed, else 0. An error (exit 104)
// is an input that is not an omnik run, or a gate that does not parse or names no
// statistic.
func Report(o Options) (engine.ExitCode, error) {
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	gates := make([]Gate, len(o.FailOn))
	for i, expr := range o.FailOn {
		var err error
		if gates[i], err = ParseGate(expr); err != nil {
			return 0, err
		}
	}
	views := [2]*htmlreport.Collector{htmlreport.NewCollector(), htmlreport.NewCollector()}
	feed := func(i int) []record.Subscriber {
		if o.HTML == "" {
			return nil
		}
		return []record.Subscriber{views[i]}
	}
	base, err := Load(o.Base, o.Log, feed(0)...)
	if err != nil {
		return 0, err
	}
	next, err := Load(o.New, o.Log, feed(1)...)
	if err != nil {
		return 0, err
	}
	c := Compare(base, next)
	results, err := c.Judge(gates)
	if err != nil {
		return 0, err
	}
	for _, w := range c.Warnings {
		if w.Info {
			o.Log.Info(w.Text)
		} else {
			o.Log.Warn(w.Text)
		}
	}
	shown := c.Filter(o.Only)
	if len(o.Only) > 0 && len(shown.Rows) == 0 {
		o.Log.Warn(fmt.Sprintf("--only %s matches no key", strings.Join(o.Only, ", ")))
	}
	if err := shown.WriteText(o.Stdout, results, TextOptions{NoColor: testrun.ColorsOff(o.NoColor, o.Stdout)}); err != nil {
		return 0, err
	}
	if o.JSON != "" {
		if err := testrun.WriteFile(o.JSON, func(w io.Writer) error { return shown.WriteJSON(w, results) }); err != nil {
			return 0, fmt.Errorf("--json: %w", err)
		}
	}
	if o.HTML != "" {
		err := testrun.WriteFile(o.HTML, func(w io.Writer) error {
			return shown.WriteHTML(w, results, sideOf(base, views[0]), sideOf(next, views[1]))
		})
		if err != nil {
			return 0, fmt.Errorf("--html: %w", err)
		}
		o.Log.Info(fmt.Sprintf("comparison page: %s (%s)", o.HTML, testrun.SizeOf(o.HTML)))
	}
	var crossed []string
	for _, r := range results {
		if r.Crossed {
			crossed = append(crossed, r.String())
		}
	}
	if len(crossed) > 0 {
		o.Log.Error("gates crossed: " + strings.Join(crossed, "; "))
		return engine.ExitThresholdsFailed, nil
	}
	return engine.ExitOK, nil
}
