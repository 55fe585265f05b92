package main

import (
	"github.com/spf13/cobra"
)

// runFlags are `omnik run`'s flags.
type runFlags struct {
	testFlags
	outs          []string
	summaryExport string
	noSummary     bool
	quiet         bool
	verbose       bool
	omni          omniFlags
	// beforeLoad runs before the script loads (omnik bench loads its dataset there).
	beforeLoad func(*omniRun) error
	// afterSummary runs once the summary is out (omnik bench writes --save-result there).
	afterSummary func(*omniRun) error
}

func newRunCommand() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [flags] SCRIPT",
		Short: "Run a scenario script (.js, .mjs, .ts)",
		Long: `Run a k6-style scenario script: VUs run its default function (or each scenario's
exec) under the configured executors, every omni call is timed in Go, thresholds gate
the exit code and a summary is printed at the end. Exit codes: docs/cli.md.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTest(cmd, args[0], &f)
		},
	}
	fs := cmd.Flags()
	f.register(fs)
	fs.StringArrayVarP(&f.outs, "out", "o", nil, "write results: json=FILE (NDJSON) or csv=FILE (repeatable)")
	fs.StringVar(&f.summaryExport, "summary-export", "", "write the summary as JSON to FILE")
	fs.BoolVar(&f.noSummary, "no-summary", false, "do not print the end-of-test summary")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "no progress output")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "show console.debug and debug logs")
	f.omni.register(fs)
	return cmd
}
