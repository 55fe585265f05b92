// Command omnik load-tests and benchmarks multi-stage omni model servers with k6-style
// JavaScript scenarios. See README.md.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/internal/gcpolicy"
	"github.com/spf13/cobra"
)

func main() {
	gcpolicy.Apply()
	stop := startProfile()
	code := execute(os.Args[1:])
	stop()
	os.Exit(code)
}

// execute runs the CLI and maps errors to the documented exit codes (docs/cli.md).
func execute(args []string) int {
	root := newRootCommand()
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	var ran *commandError
	if !errors.As(err, &ran) {
		// cobra refused the command line before any command ran.
		err = &usageError{err: err, cmd: cmd}
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

// commandError is an error a command returned once it ran, as opposed to one cobra
// returned for the command line (a usageError).
type commandError struct{ err error }

func (e *commandError) Error() string { return e.err.Error() }
func (e *commandError) Unwrap() error { return e.err }

// usageError is a command line cobra refused: an unknown command or flag, a bad flag
// value, a wrong number of arguments. Like an invalid option, it exits 104.
type usageError struct {
	err error
	cmd *cobra.Command
}

func (e *usageError) Error() string {
	return fmt.Sprintf("%v (see '%s --help')", e.err, e.cmd.CommandPath())
}
func (e *usageError) Unwrap() error             { return e.err }
func (e *usageError) ExitCode() engine.ExitCode { return engine.ExitInvalidConfig }

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "omnik",
		Short:         "Load tests and benchmarks for omni model servers (text, audio, image; per stage)",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newRunCommand(), newBenchCommand(), newSweepCommand(), newReportCommand(), newMergeCommand(), newCompareCommand(), newInspectCommand(), newVersionCommand(), newMockCommand())
	for _, c := range root.Commands() {
		markCommandErrors(c)
	}
	return root
}

// markCommandErrors wraps c's RunE so execute can tell its errors from cobra's.
func markCommandErrors(c *cobra.Command) {
	run := c.RunE
	if run == nil {
		return
	}
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if err := run(cmd, args); err != nil {
			return &commandError{err: err}
		}
		return nil
	}
}
