package main

import (
	"github.com/omnik-dev/omnik/compare"
	"github.com/spf13/cobra"
)

func newCompareCommand() *cobra.Command {
	var o compare.Options
	cmd := &cobra.Command{
		Use:   "compare [flags] BASE NEW",
		Short: "Compare two runs (result files or summary exports) side by side, and gate on the changes",
		Long: `Set two runs side by side: every statistic of their Serving and Stage blocks and METRICS,
each with its change NEW−BASE and in percent, green when it improved and red when it
regressed. BASE and NEW are result files (omnik run --out json=FILE[.gz]) or summary
exports (--summary-export FILE), told apart by their content. Warnings (stderr) say when
the runs differ in script, load or model. Each --fail-on gate KEY OP VALUE fails the
comparison when it holds: VALUE is NEW's value (requests_failed.rate > 0.01), a change
(ttft.p99 > +50ms) or a relative change (ttft.p99 > +10%). Exit 99 when a gate is
crossed, 104 when an input is not a run or a gate does not parse. docs/report.md.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Base, o.New = args[0], args[1]
			o.Stdout, o.Log = cmd.OutOrStdout(), newLogger(cmd.ErrOrStderr(), false)
			code, err := compare.Report(o)
			if err != nil {
				return err
			}
			return &exitOnly{code: code}
		},
	}
	fs := cmd.Flags()
	fs.StringArrayVar(&o.FailOn, "fail-on", nil, "gate 'KEY OP VALUE' that fails the comparison when it holds (repeatable; exit 99)")
	fs.StringArrayVar(&o.Only, "only", nil, "print only the rows whose key contains this (repeatable); gates read every row")
	fs.StringVar(&o.JSON, "json", "", "also write the comparison and the gates' verdicts as JSON to FILE")
	fs.StringVar(&o.HTML, "html", "", "also write the comparison as a self-contained HTML page, both runs' distributions overlaid, to FILE")
	fs.BoolVar(&o.NoColor, "no-color", false, "no colours (NO_COLOR is respected too)")
	return cmd
}
