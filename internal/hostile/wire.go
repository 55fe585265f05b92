package hostile

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"
)

// framing is how SSE events are written: vLLM's `data: …\n\n` unless a fault says
// otherwise.
type framing struct {
	eol       string // line terminator
	noSpace   bool   // `data:{…}` instead of `data: {…}`
	multiline bool   // each JSON member on its own data line
	comments  bool   // a comment, an id and a retry line before each event
	bom       bool   // a UTF-8 byte order mark opens the stream
	unended   bool   // the last event lacks its blank line
}

var lf = framing{eol: "\n"}

// encode writes events as f frames them, one piece per event.
func encode(evs []event, f framing) [][]byte {
	field := "data: "
	if f.noSpace {
		field = "data:"
	}
	out := make([][]byte, len(evs))
	for i, ev := range evs {
		var b bytes.Buffer
		if f.bom && i == 0 {
			b.WriteString("\uFEFF")
		}
		if f.comments {
			fmt.Fprintf(&b, ": keep-alive%sid: %d%sretry: 3000%s", f.eol, i, f.eol, f.eol)
		}
		if ev.name != "" {
			b.WriteString("event: " + ev.name + f.eol)
		}
		lines := []string{string(ev.data)}
		if f.multiline {
			// Split between members: joined again with '\n', the JSON is unchanged.
			lines = strings.Split(string(ev.data), `,"`)
			for j := range lines {
				if j > 0 {
					lines[j] = `"` + lines[j]
				}
				if j < len(lines)-1 {
					lines[j] += ","
				}
			}
		}
		for _, l := range lines {
			b.WriteString(field + l + f.eol)
		}
		if !f.unended || i < len(evs)-1 {
			b.WriteString(f.eol)
		}
		out[i] = b.Bytes()
	}
	return out
}

// pieces is the HTTP body of res in the pieces it is flushed in.
func (res *response) pieces() [][]byte {
	if res.events != nil {
		return encode(res.events, lf)
	}
	return res.body
}

// start writes the status and header and flushes them.
func (c *call) start(status int, h http.Header) {
	for k, v := range h {
		c.w.Header()[k] = v
	}
	c.w.WriteHeader(status)
	http.NewResponseController(c.w).Flush()
}

// write writes and flushes each piece, stopping at the first error (the client left).
func (c *call) write(pieces ...[]byte) error {
	rc := http.NewResponseController(c.w)
	for _, p := range pieces {
		if _, err := c.w.Write(p); err != nil {
			return err
		}
		if err := rc.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// wait returns after d, or false at once when the call is over.
func (c *call) wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-c.ctx.Done():
		return false
	}
}

// hijack takes the connection over from the HTTP server.
func (c *call) hijack() net.Conn {
	conn, _, err := http.NewResponseController(c.w).Hijack()
	if err != nil {
		panic(fmt.Sprintf("hostile: hijacking: %v", err))
	}
	return conn
}

// rst closes conn with a TCP reset, as a crashed server or a killed proxy does.
func rst(conn net.Conn) {
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}

// holdConn keeps a taken-over connection open, sending nothing, until the client closes
// it or the call is over.
func (c *call) holdConn(conn net.Conn) {
	gone := make(chan struct{})
	go func() {
		buf := make([]byte, 512)
		for {
			if _, err := conn.Read(buf); err != nil {
				close(gone)
				return
			}
		}
	}()
	select {
	case <-gone:
	case <-c.ctx.Done():
	}
	conn.Close()
}

// rawResponse writes a status line, header and body straight on a taken-over connection,
// so the body can disagree with its Content-Length.
func rawResponse(conn net.Conn, h http.Header, contentLength int, body []byte) {
	var b bytes.Buffer
	b.WriteString("HTTP/1.1 200 OK\r\n")
	h.Write(&b)
	fmt.Fprintf(&b, "Content-Length: %d\r\nConnection: close\r\n\r\n", contentLength)
	b.Write(body)
	conn.Write(b.Bytes())
}
