package client

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
	"github.com/omnik-dev/omnik/modules/omni/record"
	"github.com/omnik-dev/omnik/modules/omni/wav"
)

// bodyCounter reads the whole request body, counting it, before replaying the response.
type bodyCounter struct {
	rp replay
	n  atomic.Int64
}

func (bc *bodyCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n, _ := io.Copy(io.Discard, r.Body)
	bc.n.Store(n)
	bc.rp.ServeHTTP(w, r)
}

func TestRecordCountsBodyBytesBothWays(t *testing.T) {
	t.Parallel()
	form, formType, err := Multipart([][2]string{{"prompt", "make it blue"}}, []FormFile{{Field: "image", Name: "a.png", Data: make([]byte, 3000)}})
	if err != nil {
		t.Fatal(err)
	}
	jsonBody := []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}`)
	whole := `{"id":"c","choices":[{"index":0,"message":{"role":"assistant","content":"hello"}}]}`
	pcm := make([]byte, 9000)
	tests := []struct {
		name     string
		fn       func(*testing.T, *bodyCounter, Request) *record.Record
		rp       replay
		req      Request
		received int
	}{
		{"sse chat", counted(Chat), replay{header: sseHeader, pieces: [][]byte{omniStream()[:50], omniStream()[50:]}},
			Request{Body: jsonBody, Audio: chunk.AudioSpec{Format: "wav"}}, len(omniStream())},
		{"json chat", counted(Chat), replay{header: map[string]string{"Content-Type": "application/json"}, pieces: [][]byte{[]byte(whole)}},
			Request{Body: jsonBody}, len(whole)},
		{"multipart edit", counted(images(record.EndpointImageEdit)), replay{header: map[string]string{"Content-Type": "application/json"}, pieces: [][]byte{[]byte(`{"data":[]}`)}},
			Request{Body: form, ContentType: formType}, len(`{"data":[]}`)},
		{"raw speech", counted(Speech), replay{header: map[string]string{"Content-Type": "audio/pcm"}, pieces: [][]byte{pcm[:4000], pcm[4000:]}},
			Request{Body: jsonBody, Audio: chunk.AudioSpec{Raw: wav.PCM16(24000, 1)}}, len(pcm)},
		{"http error", counted(Chat), replay{status: 503, pieces: [][]byte{[]byte("overloaded")}},
			Request{Body: jsonBody}, len("overloaded")},
		{"empty body", counted(Chat), replay{header: map[string]string{"Content-Type": "application/json"}, pieces: [][]byte{[]byte(whole)}},
			Request{}, len(whole)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bc := &bodyCounter{rp: tc.rp}
			r := tc.fn(t, bc, tc.req)
			if r.BytesSent != int64(len(tc.req.Body)) || bc.n.Load() != r.BytesSent {
				t.Errorf("sent %d, server read %d, body is %d", r.BytesSent, bc.n.Load(), len(tc.req.Body))
			}
			if r.BytesReceived != int64(tc.received) {
				t.Errorf("received %d, want %d (err %+v)", r.BytesReceived, tc.received, r.Err)
			}
		})
	}
}

// counted runs fn against a server counting the request body.
func counted(fn func(context.Context, *http.Client, Request) *record.Record) func(*testing.T, *bodyCounter, Request) *record.Record {
	return func(t *testing.T, bc *bodyCounter, req Request) *record.Record {
		s := serve(t, bc)
		req.URL = s.URL
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return fn(ctx, s.Client(), req)
	}
}

// wsCounter counts the payload of every message a session's client sends and the
// server's messages, then plays msgs once the client sent input.done.
type wsCounter struct {
	msgs           []wsMsg
	sent, received atomic.Int64
	done           chan struct{}
}

func (wc *wsCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer close(wc.done)
	conn, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer conn.Close()
	read := func() string {
		_, data, err := conn.ReadMessage()
		if err != nil {
			return ""
		}
		wc.sent.Add(int64(len(data)))
		var m struct{ Type string }
		json.Unmarshal(data, &m)
		return m.Type
	}
	for typ := read(); typ != "input.done" && typ != ""; typ = read() {
	}
	for _, m := range wc.msgs {
		data, typ := []byte(m.text), websocket.TextMessage
		if m.bin != nil {
			data, typ = m.bin, websocket.BinaryMessage
		}
		conn.WriteMessage(typ, data)
		wc.received.Add(int64(len(data)))
	}
	read() // session.close
}

func TestAudioStreamCountsMessageBytesBothWays(t *testing.T) {
	t.Parallel()
	wc := &wsCounter{done: make(chan struct{}), msgs: []wsMsg{
		{text: `{"type":"audio.start","sentence_index":0,"sentence_text":"Hello.","format":"pcm","sample_rate":24000}`},
		{bin: make([]byte, 4800)},
		{text: `{"type":"audio.done","sentence_index":0}`},
		{text: `{"type":"session.done"}`},
	}}
	r := runStream(t, wc, StreamRequest{Config: map[string]any{"model": "tts"}, Text: []string{"Hel", "lo."}})
	<-wc.done
	if !r.OK() || r.BytesSent == 0 || r.BytesSent != wc.sent.Load() {
		t.Errorf("sent %d, server read %d (err %+v)", r.BytesSent, wc.sent.Load(), r.Err)
	}
	if r.BytesReceived != wc.received.Load() {
		t.Errorf("received %d, server wrote %d", r.BytesReceived, wc.received.Load())
	}
}
