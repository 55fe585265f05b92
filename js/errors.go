package js

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dop251/goja"
)

// ScriptError is a script that cannot load: a syntax error, a missing import, an exception
// in init code. The CLI exits 104 on it.
type ScriptError struct {
	File     string
	Line     int // 1-based; 0 when unknown
	Col      int // 1-based
	LineText string
	Msg      string
}

func (e *ScriptError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.LineText != "" {
		fmt.Fprintf(&b, "\n    %s\n    %s^", e.LineText, strings.Repeat(" ", max(e.Col-1, 0)))
	}
	return b.String()
}

// ContextError is a call used in the wrong context (init-only in VU code or the reverse).
type ContextError struct{ Call, Context string }

func (e *ContextError) Error() string {
	return fmt.Sprintf("%s can only be called in %s code", e.Call, e.Context)
}

// AbortError is test.abort(): the run stops now (exit 108).
type AbortError struct{ Reason string }

func (e *AbortError) Error() string { return "test aborted: " + e.Reason }

// Exception formats a JS error with its stack (source-mapped to the user's lines).
func Exception(err error) string {
	var ex *goja.Exception
	if errors.As(err, &ex) {
		return strings.TrimSpace(ex.String())
	}
	return err.Error()
}
