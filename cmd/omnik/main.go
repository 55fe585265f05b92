// Command omnik load-tests and benchmarks multi-stage omni model servers with k6-style
// JavaScript scenarios. See README.md.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/omnik-dev/omnik/engine"
	"github.com/spf13/cobra"
)

func main() {
	os.Exit(execute(os.Args[1:]))
}

// execute runs the CLI and maps errors to the documented exit codes (docs/cli.md).
func execute(args []string) int {
	root := newRootCommand()
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	var silent *exitOnly
	if !errors.As(err, &silent) {
		fmt.Fprintln(os.Stderr, "error:", err)
	}
	return int(engine.ExitCodeOf(err))
}

// exitOnly carries an exit code whose reason was already printed.
type exitOnly struct{ code engine.ExitCode }

func (e *exitOnly) Error() string             { return fmt.Sprintf("exit %d", e.code) }
func (e *exitOnly) ExitCode() engine.ExitCode { return e.code }

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "omnik",
		Short:         "Load tests and benchmarks for omni model servers (text, audio, image; per stage)",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newRunCommand(), newBenchCommand(), newReportCommand(), newInspectCommand(), newVersionCommand(), newMockCommand())
	return root
}
