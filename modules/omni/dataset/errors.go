package dataset

import (
	"bytes"
	"fmt"
)

// Error is a malformed dataset file: which file, where in it, and why. Line and Col are
// 1-based; zero means unknown (a whole-file problem has neither).
type Error struct {
	File   string
	Line   int
	Col    int
	Reason string
	Err    error // the underlying cause, if any
}

func (e *Error) Error() string {
	where := e.File
	if e.Line > 0 {
		where += fmt.Sprintf(":%d", e.Line)
		if e.Col > 0 {
			where += fmt.Sprintf(":%d", e.Col)
		}
	}
	return "dataset " + where + ": " + e.Reason
}

// Unwrap returns the underlying cause (an *os.PathError, a *json.SyntaxError …).
func (e *Error) Unwrap() error { return e.Err }

// position turns a byte offset of data into a 1-based line and column (in bytes).
func position(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line = bytes.Count(before, []byte{'\n'}) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}
