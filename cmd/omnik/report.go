package main

import (
	"github.com/omnik-dev/omnik/testrun"
	"github.com/spf13/cobra"
)

// reportFlags are `omnik report`'s flags.
type reportFlags struct {
	script        string
	thresholds    []string
	summaryExport string
	html          string
	noColor       bool
	omni          omniFlags
}

func newReportCommand() *cobra.Command {
	var f reportFlags
	cmd := &cobra.Command{
		Use:   "report [flags] [--html FILE] RESULTS.ndjson[.gz]",
		Short: "Print the end-of-test summary of a result file (omnik run --out json=FILE)",
		Long: `Re-report a run from the result file it wrote: the same Serving and Stage blocks,
checks, failures by reason, METRICS and thresholds as the live summary, computed from the
file's request records and points. Thresholds are the file's (the run's), or the script's
with --script, plus any --threshold. Exit 99 when a threshold fails, 104 when the file is
not omnik results. docs/cli.md.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := testrun.ReportOptions{Path: args[0], Script: f.script, Thresholds: f.thresholds,
				SummaryExport: f.summaryExport, HTML: f.html, NoColor: f.noColor,
				Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(), Log: newLogger(cmd.ErrOrStderr(), false)}
			fs := cmd.Flags()
			if fs.Changed("percentile-metrics") || fs.Changed("metric-percentiles") {
				sec, err := f.omni.section()
				if err != nil {
					return err
				}
				if fs.Changed("percentile-metrics") {
					o.Metrics = sec.Metrics
				}
				if fs.Changed("metric-percentiles") {
					o.Percentiles = sec.Percentiles
				}
			}
			if fs.Changed("no-stage-summary") {
				o.NoStages = &f.omni.noStageSummary
			}
			code, err := testrun.Report(o)
			if err != nil {
				return err
			}
			return &exitOnly{code: code}
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.script, "script", "", "take thresholds and summary options from this script instead of the file's")
	fs.StringArrayVar(&f.thresholds, "threshold", nil, "threshold EXPR judged besides (repeatable; exit 99 when one fails)")
	fs.StringVar(&f.summaryExport, "summary-export", "", "write the summary as JSON to FILE")
	fs.StringVar(&f.html, "html", "", "write the run's HTML report (plots, waterfalls, tables; one self-contained file) to FILE")
	fs.BoolVar(&f.noColor, "no-color", false, "no colours (NO_COLOR is respected too)")
	// Unset, the blocks keep the shape the run printed them in.
	f.omni.registerSection(fs, "as the run printed them", "")
	return cmd
}
