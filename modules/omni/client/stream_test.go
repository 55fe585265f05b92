package client

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
	"github.com/omnik-dev/omnik/modules/omni/record"
	"github.com/omnik-dev/omnik/modules/omni/wav"
)

// wsMsg is one server message: JSON text, or binary when bin is set.
type wsMsg struct {
	text  string
	bin   []byte
	pause time.Duration
}

// wsServer reads the client's messages until input.done, then plays msgs; it records
// what the client sent. closeEarly ends with a normal close instead of waiting.
type wsServer struct {
	msgs []wsMsg
	mu   sync.Mutex
	got  []map[string]any
	wg   sync.WaitGroup // handlers still running
}

func (ws *wsServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ws.wg.Add(1)
	defer ws.wg.Done()
	conn, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer conn.Close()
	read := func() string {
		var m map[string]any
		if conn.ReadJSON(&m) != nil {
			return ""
		}
		ws.mu.Lock()
		ws.got = append(ws.got, m)
		ws.mu.Unlock()
		s, _ := m["type"].(string)
		return s
	}
	for typ := read(); typ != "input.done" && typ != ""; typ = read() {
	}
	for _, m := range ws.msgs {
		time.Sleep(m.pause)
		if m.bin != nil {
			conn.WriteMessage(websocket.BinaryMessage, m.bin)
		} else if m.text == "close" {
			conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, "bye"))
			return
		} else {
			conn.WriteMessage(websocket.TextMessage, []byte(m.text))
		}
	}
	read() // session.close
}

// sent waits for the session's handler to end and returns what the client sent.
func (ws *wsServer) sent() []map[string]any {
	ws.wg.Wait()
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.got
}

func runStream(t *testing.T, ws http.Handler, req StreamRequest) *record.Record {
	t.Helper()
	s := serve(t, ws)
	req.URL = "ws" + strings.TrimPrefix(s.URL, "http")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return AudioStream(ctx, websocket.DefaultDialer, req)
}

func TestAudioStreamPCMSentences(t *testing.T) {
	t.Parallel()
	ws := &wsServer{msgs: []wsMsg{
		{text: `{"type":"audio.start","sentence_index":0,"sentence_text":"Hello.","format":"pcm","sample_rate":24000}`},
		{bin: make([]byte, 4801), pause: 5 * time.Millisecond},
		{bin: make([]byte, 4799)},
		{text: `{"type":"audio.done","sentence_index":0,"error":false}`},
		{text: `{"type":"audio.start","sentence_index":1,"sentence_text":"Bye.","format":"pcm"}`},
		{text: `{"type":"audio.chunk","audio_b64":"` + b64(make([]byte, 2400)) + `"}`},
		{text: `{"type":"audio.done","sentence_index":1}`},
		{text: `{"type":"session.done","total_sentences":2}`},
	}}
	r := runStream(t, ws, StreamRequest{Config: map[string]any{"model": "tts", "voice": "vivian"}, Text: []string{"Hel", "lo. ", "Bye."},
		Pace: 10 * time.Millisecond, Audio: chunk.AudioSpec{Raw: wav.PCM16(24000, 1)}})
	if !r.OK() || len(r.Utterances) != 2 || r.Audio.Frames != 6000 || r.Audio.Seconds != 0.25 || len(r.TextSent) != 3 {
		t.Fatalf("%+v utterances %+v audio %+v sent %v", r.Err, r.Utterances, r.Audio, r.TextSent)
	}
	u := r.Utterances[0]
	if u.Text != "Hello." || u.Frames != 4800 || u.Seconds != 0.2 || u.Done < u.FirstAudio || u.FirstAudio <= u.Start {
		t.Fatalf("utterance 0 %+v", u)
	}
	if ttfp, ok := u.TTFP(); !ok || ttfp < 2*time.Millisecond {
		t.Fatalf("ttfp %v", ttfp)
	}
	if rtf, ok := r.Utterances[1].RTF(); !ok || rtf <= 0 {
		t.Fatalf("rtf %v", rtf)
	}
	if r.Utterances[0].Ready != r.TextSent[1] || r.Utterances[1].Ready != r.TextSent[2] {
		t.Fatalf("sentences ready at %v, %v; want when their last piece was sent %v", r.Utterances[0].Ready, r.Utterances[1].Ready, r.TextSent)
	}
	if gap := r.TextSent[2] - r.TextSent[1]; gap < 10*time.Millisecond {
		t.Fatalf("pieces not paced: %v", r.TextSent)
	}
	got := ws.sent()
	types := []string{}
	for _, m := range got {
		types = append(types, m["type"].(string))
	}
	if strings.Join(types, ",") != "session.config,input.text,input.text,input.text,input.done,session.close" ||
		got[0]["voice"] != "vivian" || got[2]["text"] != "lo. " {
		t.Fatalf("client sent %v", got)
	}
	if _, ok := record.AudioUnderrun(r); !ok {
		t.Fatal("a streamed session has a continuity measurement")
	}
}

func TestAudioStreamWAVFrames(t *testing.T) {
	t.Parallel()
	file := wavBytes(16000, 800, 0xFFFFFFFF)
	ws := &wsServer{msgs: []wsMsg{
		{text: `{"type":"audio.start","sentence_index":0,"sentence_text":"Hi.","format":"wav"}`},
		{bin: file[:30]}, {bin: file[30:100]}, {bin: file[100:]},
		{text: `{"type":"audio.done","sentence_index":0}`},
		{text: `{"type":"session.done"}`},
	}}
	r := runStream(t, ws, StreamRequest{Text: []string{"Hi."}})
	if !r.OK() || r.Audio.Frames != 800 || r.Audio.SampleRate != 16000 || r.Audio.Seconds != 0.05 || r.Audio.Format != "wav" {
		t.Fatalf("%+v %+v", r.Err, r.Audio)
	}
}

func TestAudioStreamFailures(t *testing.T) {
	t.Parallel()
	start := wsMsg{text: `{"type":"audio.start","sentence_index":0,"format":"pcm"}`}
	tests := []struct {
		name string
		msgs []wsMsg
		req  StreamRequest
		kind string
	}{
		{"error message", []wsMsg{start, {text: `{"type":"error","message":"unknown voice"}`}}, StreamRequest{}, record.KindStreamError},
		{"error object", []wsMsg{start, {text: `{"type":"error","error":{"message":"engine died","code":500}}`}}, StreamRequest{}, record.KindStreamError},
		{"closed before session.done", []wsMsg{start, {bin: []byte{0, 0}}, {text: "close"}}, StreamRequest{}, record.KindTruncated},
		{"stall", []wsMsg{start, {text: `{"type":"session.done"}`, pause: 500 * time.Millisecond}}, StreamRequest{StallTimeout: 50 * time.Millisecond}, record.KindStall},
		{"malformed", []wsMsg{{text: `{"type":`}}, StreamRequest{}, record.KindMalformed},
		{"frame over the limit", []wsMsg{start, {bin: make([]byte, 2000)}}, StreamRequest{Limits: Limits{Event: 1000}}, record.KindOversized},
		{"chunks over the limit", []wsMsg{start, {bin: []byte{0, 0}}, {bin: []byte{0, 0}}, {bin: []byte{0, 0}}}, StreamRequest{Limits: Limits{Limits: record.Limits{Chunks: 2}}}, record.KindOversized},
		{"bad base64", []wsMsg{{text: `{"type":"audio.start","format":"wav"}`}, {text: `{"type":"audio.chunk","audio_b64":"!!!!"}`}}, StreamRequest{}, record.KindMalformed},
		{"sentence ends inside its wav header", []wsMsg{{text: `{"type":"audio.start","format":"wav"}`}, {bin: []byte("RIFF")}, {text: `{"type":"audio.done"}`}, {text: `{"type":"session.done"}`}}, StreamRequest{}, record.KindWAVBroken},
		{"broken wav", []wsMsg{{text: `{"type":"audio.start","format":"wav"}`}, {bin: []byte("ID3 not a wav header")}}, StreamRequest{}, record.KindWAVBroken},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.req.Text = []string{"x"}
			r := runStream(t, &wsServer{msgs: tc.msgs}, tc.req)
			if r.OK() || r.Err.Kind != tc.kind {
				t.Fatalf("err %+v, want %s", r.Err, tc.kind)
			}
		})
	}
}

func TestAudioStreamHandshakeAndTimeout(t *testing.T) {
	t.Parallel()
	r := runStream(t, http.NotFoundHandler(), StreamRequest{})
	if r.OK() || r.Err.Kind != record.KindHTTPStatus || r.Status != 404 {
		t.Fatalf("handshake: %+v status %d", r.Err, r.Status)
	}
	s := serve(t, &wsServer{msgs: []wsMsg{{text: `{"type":"session.done"}`, pause: time.Second}}})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	r = AudioStream(ctx, websocket.DefaultDialer, StreamRequest{URL: "ws" + strings.TrimPrefix(s.URL, "http"), Text: []string{"x"}})
	if r.OK() || r.Err.Kind != record.KindTimeout {
		t.Fatalf("timeout: %+v", r.Err)
	}
	var events int
	r = runStream(t, &wsServer{msgs: []wsMsg{{text: `{"type":"session.done"}`}}}, StreamRequest{OnEvent: func(time.Time, []byte) { events++ }})
	if !r.OK() || events != 1 {
		t.Fatalf("%+v events %d", r.Err, events)
	}
}

// A server that reads the upgrade request and never answers cannot hold a stop:
// cancelling the call ends the handshake at once, not after the dialer's handshake
// timeout (an hour here).
func TestAudioStreamHandshakeStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	asked := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		// Read the whole upgrade request: the client is then inside its handshake.
		if _, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
			asked <- c // held open, never answered
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *record.Record, 1)
	d := &websocket.Dialer{HandshakeTimeout: time.Hour}
	go func() {
		done <- AudioStream(ctx, d, StreamRequest{URL: "ws://" + ln.Addr().String(), Text: []string{"x"}})
	}()
	conn := <-asked
	t.Cleanup(func() { conn.Close() })
	cancel()
	select {
	case r := <-done:
		if r.OK() || r.Err.Kind != record.KindInterrupted {
			t.Errorf("err %+v, want interrupted", r.Err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the cancelled handshake is still waiting")
	}
}
