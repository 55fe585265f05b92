package mock

import (
	"bytes"
	"log"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// panicLog is the server's error log: it keeps the first line that reports a panic.
type panicLog struct{ first atomic.Pointer[string] }

func (p *panicLog) Write(b []byte) (int, error) {
	if bytes.Contains(b, []byte("panic")) {
		msg := string(b)
		p.first.CompareAndSwap(nil, &msg)
	}
	return len(b), nil
}

// FuzzRealtimeSession sends any client events, one a line, on one session: the
// simulator answers or refuses each, and never panics.
func FuzzRealtimeSession(f *testing.F) {
	audio := `{"type":"input_audio_buffer.append","audio":"` + speechB64(320, 1) + `"}`
	for _, s := range []string{
		`{"type":"session.update","model":""}` + "\n" + `{"type":"input_audio_buffer.commit"}` + "\n" + audio + "\n" + `{"type":"input_audio_buffer.commit","final":true}`,
		`{"type":"session.update","session":{"model":"","turn_detection":{"type":"server_vad"}}}` + "\n" + audio + "\n" + `{"type":"input_audio_buffer.append","audio":"AAAA"}`,
		`{"type":"input_audio_buffer.commit","final":true}` + "\n" + `{"type":"response.cancel"}` + "\n" + `{"type":"session.close"}`,
		`{"type":"input_audio_buffer.append","audio":"!!"}` + "\n" + `not json` + "\n" + `{"type":7}`,
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	s, err := New(WithSpeed(1000), WithProfile("qwen3-omni"))
	if err != nil {
		f.Fatal(err)
	}
	logs := &panicLog{}
	srv := httptest.NewUnstartedServer(s.Handler())
	srv.Config.ErrorLog = log.New(logs, "", 0)
	srv.Start()
	f.Cleanup(srv.Close)
	f.Fuzz(func(t *testing.T, events string, duplex bool) {
		path := "/v1/realtime"
		if duplex {
			path += "?duplex=1"
		}
		c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		// Read while writing: a server blocked on a full socket stops reading too.
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		read := make(chan struct{})
		go func() {
			defer close(read)
			for {
				if _, _, err := c.ReadMessage(); err != nil {
					return
				}
			}
		}()
		for _, line := range strings.Split(events, "\n") {
			if c.WriteMessage(websocket.TextMessage, []byte(line)) != nil {
				break
			}
		}
		_ = c.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""))
		<-read
		if msg := logs.first.Load(); msg != nil {
			t.Fatalf("the simulator panicked:\n%s", *msg)
		}
	})
}
