package iocount

import (
	"io"
	"strings"
	"sync/atomic"
	"testing"
)

func TestReaderCountsWhatWasRead(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	b, err := io.ReadAll(&Reader{R: strings.NewReader("hello world"), N: &n})
	if err != nil || string(b) != "hello world" || n.Load() != 11 {
		t.Errorf("read %q (%v), counted %d; want 11 bytes", b, err, n.Load())
	}
}
