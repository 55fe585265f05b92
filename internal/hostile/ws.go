package hostile

import (
	"bytes"
	"encoding/binary"
	"net/http"
	"time"

	"github.com/gorilla/websocket"
)

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// wsConn is an accepted websocket session.
type wsConn struct {
	*websocket.Conn
	input chan struct{} // closed at the client's input.done: its text is all sent
	gone  chan struct{} // closed when the client's side has ended
}

// session accepts the websocket, waits for the client's input.done and runs play; the
// connection is closed when play returns.
func session(c *call, play func(ws *wsConn)) {
	conn, err := upgrader.Upgrade(c.w, c.r, nil)
	if err != nil {
		return
	}
	defer conn.Close()
	ws := &wsConn{Conn: conn, input: make(chan struct{}), gone: make(chan struct{})}
	go ws.read()
	select {
	case <-ws.input:
		play(ws)
	case <-ws.gone:
	case <-c.ctx.Done():
	}
}

// read takes the client's messages (gorilla answers its close and pings meanwhile).
func (ws *wsConn) read() {
	defer close(ws.gone)
	seen := false
	for {
		_, data, err := ws.ReadMessage()
		if err != nil {
			return
		}
		if !seen && bytes.Contains(data, []byte(`"input.done"`)) {
			seen = true
			close(ws.input)
		}
	}
}

// send writes messages, stopping at the first error.
func (ws *wsConn) send(msgs ...message) error {
	for _, m := range msgs {
		typ := websocket.TextMessage
		if m.binary {
			typ = websocket.BinaryMessage
		}
		if err := ws.WriteMessage(typ, m.data); err != nil {
			return err
		}
	}
	return nil
}

// closeNormally sends a normal closure and waits for the client to answer it.
func (ws *wsConn) closeNormally(c *call) {
	ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	ws.hold(c)
}

// hold keeps the session open, sending nothing, until the client ends it or the call is
// over.
func (ws *wsConn) hold(c *call) {
	select {
	case <-ws.gone:
	case <-c.ctx.Done():
	}
}

// Websocket opcodes, for frames written by hand.
const (
	opContinuation = 0
	opText         = 1
	opBinary       = 2
)

// frameHeader is the header of an unmasked (server) frame of n payload bytes.
func frameHeader(op byte, fin bool, n int) []byte {
	b0 := op
	if fin {
		b0 |= 0x80
	}
	switch {
	case n < 126:
		return []byte{b0, byte(n)}
	case n < 1<<16:
		return []byte{b0, 126, byte(n >> 8), byte(n)}
	}
	h := []byte{b0, 127, 0, 0, 0, 0, 0, 0, 0, 0}
	binary.BigEndian.PutUint64(h[2:], uint64(n))
	return h
}

// fragments is m as frames of at most size payload bytes: the first with m's opcode,
// the rest continuations, the last final.
func fragments(m message, size int) []byte {
	op := byte(opText)
	if m.binary {
		op = opBinary
	}
	var b bytes.Buffer
	for i := 0; i < len(m.data) || i == 0; i += size {
		end := min(i+size, len(m.data))
		b.Write(frameHeader(op, end == len(m.data), end-i))
		b.Write(m.data[i:end])
		op = opContinuation
	}
	return b.Bytes()
}
