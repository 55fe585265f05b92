package engine

import (
	"errors"
	"testing"
)

// The precedence of exit codes, decided in ExitCodeFor alone (docs/cli.md).
func TestExitCodeForPrecedence(t *testing.T) {
	t.Parallel()
	exception := &ExitError{Code: ExitScriptException, Err: errors.New("setup threw")}
	hs := errors.New("handleSummary threw")
	tests := []struct {
		name       string
		res        Result
		thresholds bool
		summaryErr error
		want       ExitCode
	}{
		{"all well", Result{}, true, nil, ExitOK},
		{"an exception beats everything", Result{Err: exception, AbortCode: ExitAborted, Interrupted: true, Failed: true}, false, hs, ExitScriptException},
		{"test.abort beats a stop and thresholds", Result{AbortCode: ExitAborted, Interrupted: true}, false, nil, ExitAborted},
		{"abortOnFail", Result{AbortCode: ExitThresholdsFailed, Interrupted: true}, true, nil, ExitThresholdsFailed},
		{"a stop beats failed thresholds", Result{Interrupted: true}, false, nil, ExitInterrupted},
		{"failed thresholds beat test.fail", Result{Failed: true}, false, nil, ExitThresholdsFailed},
		{"test.fail beats handleSummary", Result{Failed: true}, true, hs, ExitFailed},
		{"handleSummary", Result{}, true, hs, ExitScriptException},
	}
	for _, tc := range tests {
		if got := ExitCodeFor(tc.res, tc.thresholds, tc.summaryErr); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}
