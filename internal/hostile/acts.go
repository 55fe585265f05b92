package hostile

import (
	"bytes"
	"net/http"
	"slices"
	"time"
)

// An act answers one request on behalf of a fault, starting from the endpoint's healthy
// response in c.res.
type act func(c *call)

// serve sends c.res as it is.
func serve(c *call) {
	if c.ep == AudioStream {
		session(c, func(ws *wsConn) {
			if ws.send(c.res.msgs...) == nil {
				ws.hold(c)
			}
		})
		return
	}
	c.start(http.StatusOK, c.res.header)
	c.write(c.res.pieces()...)
}

// respond answers with one status and body; on the websocket, instead of the upgrade.
func respond(status int, contentType string, body []byte) act {
	return func(c *call) {
		c.w.Header().Set("Content-Type", contentType)
		c.w.WriteHeader(status)
		c.w.Write(body)
	}
}

// bend changes what the response says, then serves it.
func bend(change func(p *parts)) act {
	return func(c *call) {
		p := healthyParts(c.ep)
		change(p)
		c.res = build(c.ep, p)
		serve(c)
	}
}

// insert puts an event named name (on the websocket, a text message) holding data
// before the at-th one.
func insert(at int, name string, data []byte) act {
	return func(c *call) {
		if c.ep == AudioStream {
			c.res.msgs = slices.Insert(c.res.msgs, at, message{data: data})
		} else {
			c.res.events = slices.Insert(c.res.events, at, event{name: name, data: data})
		}
		serve(c)
	}
}

// cut halves the at-th event or message, or a whole body: its JSON ends mid-way.
func cut(at int) act {
	return func(c *call) {
		switch {
		case c.ep == AudioStream:
			m := &c.res.msgs[at]
			m.data = m.data[:len(m.data)/2]
		case c.res.events != nil:
			ev := &c.res.events[at]
			ev.data = ev.data[:len(ev.data)/2]
		default:
			c.res.body = c.res.body[:1] // the first of its halves
		}
		serve(c)
	}
}

// dropLast leaves out the last event or message: the stream's terminator.
func dropLast(c *call) {
	if c.ep == AudioStream {
		session(c, func(ws *wsConn) {
			if ws.send(c.res.msgs[:len(c.res.msgs)-1]...) == nil {
				ws.closeNormally(c)
			}
		})
		return
	}
	c.res.events = c.res.events[:len(c.res.events)-1]
	serve(c)
}

// midway sends the first half of the response, then hands over to then.
func midway(then func(c *call, ws *wsConn)) act {
	return func(c *call) {
		if c.ep == AudioStream {
			session(c, func(ws *wsConn) {
				if ws.send(c.res.msgs[:len(c.res.msgs)/2]...) == nil {
					then(c, ws)
				}
			})
			return
		}
		p := c.res.pieces()
		c.start(http.StatusOK, c.res.header)
		if c.write(p[:len(p)/2]...) == nil {
			then(c, nil)
		}
	}
}

// reset drops the connection with a TCP reset.
func reset(c *call, ws *wsConn) {
	if ws != nil {
		rst(ws.NetConn())
		return
	}
	rst(c.hijack())
}

// hold keeps the connection open and silent until the client gives up.
func hold(c *call, ws *wsConn) {
	if ws != nil {
		ws.hold(c)
		return
	}
	<-c.ctx.Done()
}

// framed writes the SSE events as f frames them.
func framed(f framing) act {
	return func(c *call) {
		c.start(http.StatusOK, c.res.header)
		c.write(encode(c.res.events, f)...)
	}
}

// fragmented sends the response in writes (websocket: frames) of 7 bytes.
func fragmented(c *call) {
	const size = 7
	if c.ep == AudioStream {
		session(c, func(ws *wsConn) {
			for _, m := range c.res.msgs {
				if _, err := ws.NetConn().Write(fragments(m, size)); err != nil {
					return
				}
			}
			ws.hold(c)
		})
		return
	}
	c.start(http.StatusOK, c.res.header)
	for b := bytes.Join(c.res.pieces(), nil); len(b) > 0; b = b[min(size, len(b)):] {
		if c.write(b[:min(size, len(b))]) != nil {
			return
		}
	}
}

// drip sends the response a byte every 250 ms: alive, never finishing an event.
func drip(c *call) {
	if c.ep == AudioStream {
		session(c, func(ws *wsConn) {
			first := c.res.msgs[0].data
			raw := append(frameHeader(opText, true, len(first)), first...)
			dripBytes(c, raw, func(p []byte) error { _, err := ws.NetConn().Write(p); return err })
		})
		return
	}
	c.start(http.StatusOK, c.res.header)
	dripBytes(c, bytes.Join(c.res.pieces(), nil), func(p []byte) error { return c.write(p) })
}

func dripBytes(c *call, b []byte, send func([]byte) error) {
	for i := range b {
		if send(b[i:i+1]) != nil || !c.wait(250*time.Millisecond) {
			return
		}
	}
}

// shortBody says a Content-Length of the whole body, sends half of it and closes.
func shortBody(c *call) {
	body := bytes.Join(c.res.pieces(), nil)
	conn := c.hijack()
	rawResponse(conn, c.res.header, len(body), body[:len(body)/2])
	conn.Close()
}

// resetNow drops the connection with a TCP reset before any byte of the response.
func resetNow(c *call) { rst(c.hijack()) }

// partialHeaders sends half a header block, then nothing.
func partialHeaders(c *call) {
	conn := c.hijack()
	conn.Write([]byte("HTTP/1.1 200 OK\r\nContent-Type: text/event-str"))
	c.holdConn(conn)
}

// never answers: the response headers never come.
func never(c *call) { hold(c, nil) }

// empty answers 200 with no body; the websocket closes normally at once.
func empty(c *call) {
	if c.ep == AudioStream {
		session(c, func(ws *wsConn) { ws.closeNormally(c) })
		return
	}
	h := c.res.header.Clone()
	h.Set("Content-Length", "0")
	c.start(http.StatusOK, h)
}
