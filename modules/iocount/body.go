// Package iocount counts the request body bytes the protocol modules report as
// data_sent. The HTTP transport writes a body on its own goroutine, so the count is
// atomic.
package iocount

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
)

// SetBody gives req the body b as http.NewRequest gives a bytes.Reader, with its length
// and GetBody: net/http writes a body it knows to be in memory with the headers, in one
// syscall (a wrapped reader costs a second write). It adds len(b) to sent each time a
// request written in full carried the body: a retry or a 307 again (the bytes were sent
// again), not the body-less GET a 303 becomes. A write that failed counts nothing. It
// returns the request to send, which carries the hook.
func SetBody(req *http.Request, b []byte, sent *atomic.Int64) *http.Request {
	if len(b) == 0 {
		return req
	}
	// armed is set each time the body is handed to a write, and spent by the write.
	var armed atomic.Bool
	req.GetBody = func() (io.ReadCloser, error) {
		armed.Store(true)
		return io.NopCloser(bytes.NewReader(b)), nil
	}
	req.Body, _ = req.GetBody()
	req.ContentLength = int64(len(b))
	n := int64(len(b))
	return req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		WroteRequest: func(w httptrace.WroteRequestInfo) {
			// A failed write leaves it armed: the retry of an unread body sends it again.
			if w.Err == nil && armed.Swap(false) {
				sent.Add(n)
			}
		},
	}))
}
