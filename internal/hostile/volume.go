package hostile

import (
	"bytes"
	"io"
	"net/http"
	"slices"
	"time"

	"github.com/gorilla/websocket"
)

// Sizes of the faults of volume.
const (
	hugeBytes  = 300 << 20 // one event, body or frame: beyond every bound omnik sets
	manyChunks = 140000    // more chunks than a request may hold (131072)
)

// mib is the filler of a flood or of a huge payload: "A"s are valid text, base64 (of
// zeros) and PCM alike.
var mib = bytes.Repeat([]byte("A"), 1<<20)

// grower is where an endpoint's payload grows, as prefix + filler + suffix: a text or
// base64 string inside its JSON, or for raw speech the audio itself. On the SSE
// endpoints each prefix + filler + suffix is one event. The JSON around the filler is
// the least each endpoint reads, so a reader spends its time on the events' number and
// size, not on fields.
func grower(ep Endpoint) (prefix, suffix string) {
	switch ep {
	case ChatStream:
		return `data: {"choices":[{"index":0,"delta":{"content":"`, `"}}]}` + "\n\n"
	case ImagesEdit:
		return `data: {"type":"ar_delta","delta":"`, `"}` + "\n\n"
	case SpeechSSE:
		return `data: {"type":"speech.audio.delta","audio":"`, `"}` + "\n\n"
	case ChatJSON:
		return `{"choices":[{"index":0,"message":{"content":"`, `"}}]}`
	case Images:
		return `{"data":[{"b64_json":"`, `"}]}`
	}
	return "", ""
}

func isSSE(ep Endpoint) bool { return slices.Contains(sse, ep) }

// terminator is the encoded last event of an SSE response: what ends it.
func (res *response) terminator() []byte { return encode(res.events[len(res.events)-1:], lf)[0] }

// huge sends one payload of hugeBytes, then ends the response properly.
func huge(c *call) {
	if c.ep == AudioStream {
		session(c, func(ws *wsConn) {
			conn := ws.NetConn()
			if ws.send(c.res.msgs[0]) != nil || write(conn, frameHeader(opBinary, true, hugeBytes)) != nil {
				return
			}
			for range hugeBytes / len(mib) {
				if write(conn, mib) != nil {
					return
				}
			}
			if ws.send(c.res.msgs[len(c.res.msgs)-2:]...) == nil {
				ws.hold(c)
			}
		})
		return
	}
	prefix, suffix := grower(c.ep)
	c.start(http.StatusOK, c.res.header)
	if c.write([]byte(prefix)) != nil {
		return
	}
	for range hugeBytes / len(mib) {
		if c.write(mib) != nil {
			return
		}
	}
	if c.write([]byte(suffix)) == nil && isSSE(c.ep) {
		c.write(c.res.terminator())
	}
}

// endless sends fill every `every`, forever: on SSE each time in an event of its own,
// on a body as more of one string, on the websocket as a binary frame.
func endless(fill []byte, every time.Duration) act {
	return func(c *call) {
		if c.ep == AudioStream {
			session(c, func(ws *wsConn) {
				if ws.send(c.res.msgs[0]) == nil {
					repeat(c, every, func() error { return ws.WriteMessage(websocket.BinaryMessage, fill) })
				}
			})
			return
		}
		prefix, suffix := grower(c.ep)
		c.start(http.StatusOK, c.res.header)
		unit := fill
		if isSSE(c.ep) {
			unit = bytes.Join([][]byte{[]byte(prefix), fill, []byte(suffix)}, nil)
		} else if c.write([]byte(prefix)) != nil {
			return
		}
		repeat(c, every, func() error { return c.write(unit) })
	}
}

// repeat calls send every `every` until it fails or the call is over.
func repeat(c *call, every time.Duration, send func() error) {
	for send() == nil && c.wait(every) {
	}
}

// tooMany sends manyChunks tiny events (websocket: binary frames), then the terminator.
func tooMany(c *call) {
	if c.ep == AudioStream {
		session(c, func(ws *wsConn) {
			var b bytes.Buffer
			for range manyChunks {
				b.Write(frameHeader(opBinary, true, 4))
				b.WriteString("AAAA")
			}
			if ws.send(c.res.msgs[0]) == nil && write(ws.NetConn(), b.Bytes()) == nil &&
				ws.send(c.res.msgs[len(c.res.msgs)-2:]...) == nil {
				ws.hold(c)
			}
		})
		return
	}
	prefix, suffix := grower(c.ep)
	const batch = 1000
	units := bytes.Repeat([]byte(prefix+"AAAA"+suffix), batch)
	c.start(http.StatusOK, c.res.header)
	for range manyChunks / batch {
		if c.write(units) != nil {
			return
		}
	}
	c.write(c.res.terminator())
}

// keepalive sends only SSE comments (websocket: pings) every 100 ms, forever.
func keepalive(c *call) {
	const every = 100 * time.Millisecond
	if c.ep == AudioStream {
		session(c, func(ws *wsConn) {
			repeat(c, every, func() error { return ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(time.Second)) })
		})
		return
	}
	c.start(http.StatusOK, c.res.header)
	repeat(c, every, func() error { return c.write([]byte(": keep-alive\n\n")) })
}

func write(w io.Writer, b []byte) error {
	_, err := w.Write(b)
	return err
}
