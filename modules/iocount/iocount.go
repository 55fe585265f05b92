// Package iocount counts the bytes that pass through a reader, for the protocol modules'
// data_sent: the HTTP transport reads a request body on its own goroutine, so the count
// is atomic.
package iocount

import (
	"io"
	"sync/atomic"
)

// Reader adds the bytes read through R to N.
type Reader struct {
	R io.Reader
	N *atomic.Int64
}

func (c *Reader) Read(p []byte) (int, error) {
	n, err := c.R.Read(p)
	c.N.Add(int64(n))
	return n, err
}
