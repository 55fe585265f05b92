package client

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/record"
)

// replay serves exact bytes: status, headers, then each piece flushed on its own, so the
// client sees the stream split where the test says. stall pauses before the last piece;
// reset drops the connection after the pieces without finishing the chunked body.
type replay struct {
	status int
	header map[string]string
	pieces [][]byte
	stall  time.Duration
	reset  bool
}

func (rp replay) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	for k, v := range rp.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(max(rp.status, 200))
	w.(http.Flusher).Flush()
	for i, p := range rp.pieces {
		if rp.stall > 0 && i == len(rp.pieces)-1 {
			select {
			case <-time.After(rp.stall):
			case <-r.Context().Done():
				return
			}
		}
		w.Write(p)
		w.(http.Flusher).Flush()
	}
	if rp.reset {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	}
}

func serve(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

// everySplit replays rp's single piece whole and cut in two at every byte boundary,
// from one server, and checks each record.
func everySplit(t *testing.T, fn func(context.Context, *http.Client, Request) *record.Record, rp replay, req Request, check func(split int, r *record.Record)) {
	t.Helper()
	stream := rp.pieces[0]
	s := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i, _ := strconv.Atoi(r.URL.Query().Get("split"))
		rp := rp
		rp.pieces = [][]byte{stream[:i], stream[i:]}
		rp.ServeHTTP(w, r)
	}))
	for i := range len(stream) {
		req.URL = s.URL + "?split=" + strconv.Itoa(i)
		check(i, fn(context.Background(), s.Client(), req))
	}
}

var sseHeader = map[string]string{"Content-Type": "text/event-stream"}

func do(t *testing.T, fn func(context.Context, *http.Client, Request) *record.Record, rp http.Handler, req Request) *record.Record {
	t.Helper()
	s := serve(t, rp)
	req.URL = s.URL
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return fn(ctx, s.Client(), req)
}

// wavBytes is a PCM16 mono WAV of n frames at rate, with the given data size field.
func wavBytes(rate, n int, dataSize uint32) []byte {
	var b bytes.Buffer
	le := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	le(uint32(36 + 2*n))
	b.WriteString("WAVEfmt ")
	for _, v := range []any{uint32(16), uint16(1), uint16(1), uint32(rate), uint32(2 * rate), uint16(2), uint16(16)} {
		le(v)
	}
	b.WriteString("data")
	le(dataSize)
	b.Write(make([]byte, 2*n))
	return b.Bytes()
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func pngB64(w, h int) string {
	var buf bytes.Buffer
	png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h)))
	return b64(buf.Bytes())
}
