package main

import (
	"github.com/omnik-dev/omnik/testrun"
	"github.com/spf13/cobra"
)

func newMergeCommand() *cobra.Command {
	var o testrun.MergeOptions
	cmd := &cobra.Command{
		Use:   "merge [flags] DIR|RESULTS.ndjson[.gz]...",
		Short: "Merge the result files of a distributed run's pieces into one summary",
		Long: `Combine the result files (omnik run --out json=FILE) of the pieces of one distributed
run (--execution-segment) into one end-to-end summary, as if one process had made every
request: the Serving and Stage blocks and every distribution are computed from all the
records, and the thresholds are judged once. A directory stands for the result files in
it. Pieces of different scripts or runs, segments that overlap or leave a gap, and mixed
record schemas are refused (exit 104); exit 99 when a threshold fails. docs/distributed.md.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Paths = args
			o.Stdout, o.Stderr, o.Log = cmd.OutOrStdout(), cmd.ErrOrStderr(), newLogger(cmd.ErrOrStderr(), false)
			code, err := testrun.Merge(o)
			if err != nil {
				return err
			}
			return &exitOnly{code: code}
		},
	}
	fs := cmd.Flags()
	fs.StringArrayVar(&o.Thresholds, "threshold", nil, "threshold EXPR judged besides the script's (repeatable; exit 99 when one fails)")
	fs.StringVar(&o.SummaryExport, "summary-export", "", "write the merged summary as JSON to FILE (not into the pieces' directory: it would be read as a piece next time)")
	fs.StringVar(&o.HTML, "html", "", "write the merged run's HTML report to FILE (not into the pieces' directory either)")
	fs.BoolVar(&o.Partial, "partial", false, "merge pieces that were interrupted or killed too, with a warning each (by default they are refused)")
	fs.BoolVar(&o.NoColor, "no-color", false, "no colours (NO_COLOR is respected too)")
	return cmd
}
