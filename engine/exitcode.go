package engine

import (
	"errors"
	"fmt"
)

// ExitCode is a process exit status with a documented meaning. The numbers follow k6's
// so scripts and CI pipelines written for k6 keep working.
type ExitCode int

// Exit codes omnik uses.
const (
	// ExitOK: the run finished and every threshold passed.
	ExitOK ExitCode = 0
	// ExitThresholdsFailed: a threshold failed, at the end or through abortOnFail.
	ExitThresholdsFailed ExitCode = 99
	// ExitInvalidConfig: the script could not load, its options are invalid, or the
	// command line is not one omnik takes.
	ExitInvalidConfig ExitCode = 104
	// ExitInterrupted: the run was stopped by a signal (Ctrl-C) or by Run.Stop.
	ExitInterrupted ExitCode = 105
	// ExitScriptException: init code, setup, teardown or handleSummary threw.
	ExitScriptException ExitCode = 107
	// ExitAborted: the script called test.abort().
	ExitAborted ExitCode = 108
	// ExitFailed: the script called test.fail(), or omnik bench completed no request; the
	// run went on to the end.
	ExitFailed ExitCode = 110
)

// ExitError is an error that decides the process exit code.
type ExitError struct {
	Code ExitCode
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *ExitError) Unwrap() error { return e.Err }

// ExitCode returns e.Code.
func (e *ExitError) ExitCode() ExitCode { return e.Code }

// exitErrorf builds an *ExitError with a formatted cause.
func exitErrorf(code ExitCode, format string, args ...any) *ExitError {
	return &ExitError{Code: code, Err: fmt.Errorf(format, args...)}
}

// Invalid marks err as a configuration error, exit 104, unless it already carries a code.
func Invalid(err error) error {
	var coded interface{ ExitCode() ExitCode }
	if errors.As(err, &coded) {
		return err
	}
	return &ExitError{Code: ExitInvalidConfig, Err: err}
}

// ExitCodeOf returns the exit code an error asks for: ExitOK for nil, the code of the
// first error in the chain that has an ExitCode method, and 1 for any other error.
func ExitCodeOf(err error) ExitCode {
	if err == nil {
		return ExitOK
	}
	var c interface{ ExitCode() ExitCode }
	if errors.As(err, &c) {
		return c.ExitCode()
	}
	return 1
}
