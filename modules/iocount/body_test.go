package iocount

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// writeCounter counts the writes on a connection: one per syscall.
type writeCounter struct {
	net.Conn
	writes *atomic.Int64
}

func (c writeCounter) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// The headers and the body leave in one write, and the body's bytes are counted once.
func TestSetBodyWritesOnceAndCounts(t *testing.T) {
	t.Parallel()
	var got atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		got.Store(n)
	}))
	defer s.Close()
	var writes atomic.Int64
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		return writeCounter{c, &writes}, err
	}}
	defer tr.CloseIdleConnections()
	body := []byte(strings.Repeat("x", 3000))
	for _, b := range [][]byte{body, nil} {
		writes.Store(0)
		var sent atomic.Int64
		req, _ := http.NewRequest(http.MethodPost, s.URL, nil)
		resp, err := (&http.Client{Transport: tr}).Do(SetBody(req, b, &sent))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if writes.Load() != 1 || sent.Load() != int64(len(b)) || got.Load() != int64(len(b)) {
			t.Errorf("%d-byte body: %d writes, counted %d, server read %d; want 1 write and %d bytes",
				len(b), writes.Load(), sent.Load(), got.Load(), len(b))
		}
	}
}

// A 307 sends the body again and counts it again; the GET a 303 becomes has none.
func TestSetBodyCountsRedirectsThatResendTheBody(t *testing.T) {
	t.Parallel()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		switch r.URL.Path {
		case "/307":
			http.Redirect(w, r, "/done", http.StatusTemporaryRedirect)
		case "/303":
			http.Redirect(w, r, "/done", http.StatusSeeOther)
		}
	}))
	defer s.Close()
	body := []byte("0123456789")
	for path, want := range map[string]int64{"/307": 20, "/303": 10, "/done": 10} {
		var sent atomic.Int64
		req, _ := http.NewRequest(http.MethodPost, s.URL+path, nil)
		resp, err := s.Client().Do(SetBody(req, body, &sent))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if sent.Load() != want {
			t.Errorf("%s: counted %d bytes, want %d", path, sent.Load(), want)
		}
	}
}
