package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

func textEvent(content string, tokens int) string {
	return fmt.Sprintf(`{"choices":[{"index":0,"delta":{"content":%q}}],"usage":{"completion_tokens":%d},"modality":"text"}`, content, tokens)
}

// anomaly is r's anomaly of kind, nil when it has none.
func anomaly(r *record.Record, kind string) *record.Anomaly {
	for i := range r.Anomalies {
		if r.Anomalies[i].Kind == kind {
			return &r.Anomalies[i]
		}
	}
	return nil
}

// Text beyond Limits.Text is measured but not kept, and the record says how much was cut.
func TestTextKeptForTheScriptIsCapped(t *testing.T) {
	t.Parallel()
	events := make([]string, 0, 11)
	for i := range 10 {
		events = append(events, textEvent(strings.Repeat("x", 100), 10*(i+1)))
	}
	events = append(events, "[DONE]")
	r := do(t, Chat, replay{header: sseHeader, pieces: [][]byte{sseStream(events...)}}, Request{Limits: Limits{Limits: record.Limits{Text: 250}}})
	if !r.OK() || len(r.Text) != 250 || len(r.TextChunks) != 10 {
		t.Fatalf("ok %v, %d bytes kept, %d chunks: %+v", r.OK(), len(r.Text), len(r.TextChunks), r.Err)
	}
	a := anomaly(r, record.AnomalyTextCut)
	if a == nil || !strings.Contains(a.Message, "stopped at 250 bytes; 750 more") {
		t.Fatalf("anomalies %+v", r.Anomalies)
	}
}

// One chunk past Limits.Chunks fails the request and ends the read: a server's endless
// stream of tiny events must not grow a record without bound.
func TestChunksPerResponseAreCapped(t *testing.T) {
	t.Parallel()
	var events []string
	for i := range 50 {
		events = append(events, textEvent("a", i+1))
	}
	events = append(events, "[DONE]")
	r := do(t, Chat, replay{header: sseHeader, pieces: [][]byte{sseStream(events...)}}, Request{Limits: Limits{Limits: record.Limits{Chunks: 5}}})
	if r.OK() || r.Err.Kind != record.KindOversized || !strings.Contains(r.Err.Message, "more than 5 chunks") || len(r.TextChunks) != 5 {
		t.Fatalf("err %+v with %d chunks", r.Err, len(r.TextChunks))
	}
	r = do(t, Speech, replay{header: sseHeader, pieces: [][]byte{speechEvents(true, "audio")}},
		Request{Audio: chunk.AudioSpec{Format: "pcm"}, Limits: Limits{Limits: record.Limits{Chunks: 2}}})
	if r.OK() || r.Err.Kind != record.KindOversized || len(r.AudioChunks) != 2 {
		t.Fatalf("speech events: err %+v with %d chunks", r.Err, len(r.AudioChunks))
	}
	// Raw audio is read as it comes: an endless body ends at the limit, however its
	// reads fall.
	endless := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "audio/pcm")
		for r.Context().Err() == nil {
			if _, err := w.Write(make([]byte, 480)); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			time.Sleep(time.Millisecond)
		}
	})
	r = do(t, Speech, endless, Request{Audio: chunk.AudioSpec{Format: "pcm"}, Limits: Limits{Limits: record.Limits{Chunks: 3}}})
	if r.OK() || r.Err.Kind != record.KindOversized || len(r.AudioChunks) != 3 {
		t.Fatalf("raw speech: err %+v with %d chunks", r.Err, len(r.AudioChunks))
	}
}

// Audio kept for the script stops at the body limit; what was cut is said.
func TestKeptAudioIsCapped(t *testing.T) {
	t.Parallel()
	pcm := replay{header: map[string]string{"Content-Type": "audio/pcm"}}
	for range 4 {
		pcm.pieces = append(pcm.pieces, make([]byte, 400))
	}
	r := do(t, Speech, pcm, Request{Audio: chunk.AudioSpec{Format: "pcm", Keep: true}, Limits: Limits{Body: 1000}})
	if !r.OK() || r.Audio.Bytes != 1600 || len(r.Audio.Samples) > 1000 || anomaly(r, record.AnomalyPayloadCut) == nil {
		t.Fatalf("ok %v, %d bytes, %d kept, anomalies %+v", r.OK(), r.Audio.Bytes, len(r.Audio.Samples), r.Anomalies)
	}
}

// A chunk of a modality omnik does not know is not text: it adds no text chunk and is
// flagged.
func TestUnknownModalityIsFlaggedNotCountedAsText(t *testing.T) {
	t.Parallel()
	stream := sseStream(textEvent("Hi", 1),
		`{"choices":[{"index":0,"delta":{"content":"AAAAframes"}}],"modality":"video"}`,
		`{"choices":[{"index":0,"delta":{"content":"BBBB"}}],"modality":"video"}`, "[DONE]")
	r := do(t, Chat, replay{header: sseHeader, pieces: [][]byte{stream}}, Request{})
	a := anomaly(r, record.AnomalyModality)
	if !r.OK() || r.Text != "Hi" || len(r.TextChunks) != 1 || a == nil || a.Count != 2 || !strings.Contains(a.Message, `"video"`) {
		t.Fatalf("ok %v text %q chunks %d anomalies %+v", r.OK(), r.Text, len(r.TextChunks), r.Anomalies)
	}
}

// A usage count that claims more tokens than a chunk has bytes is flagged; ITL credits
// the chunk its bytes, not the claim.
func TestUsageBeyondWhatArrivedIsFlagged(t *testing.T) {
	t.Parallel()
	stream := sseStream(textEvent("Hello", 1), textEvent(" world", 1<<31-1), "[DONE]")
	r := do(t, Chat, replay{header: sseHeader, pieces: [][]byte{stream}}, Request{})
	a := anomaly(r, record.AnomalyUsage)
	if !r.OK() || a == nil || !strings.Contains(a.Message, "completion_tokens 2147483647 is more than the 246 bytes received") {
		t.Fatalf("ok %v anomalies %+v", r.OK(), r.Anomalies)
	}
	if n := len(record.ITL(r)); n != 6 {
		t.Fatalf("%d ITL entries, want the 6 bytes of the second chunk", n)
	}
	// A reasoning model's tokens rise on deltas that carry no text, by less than the
	// bytes they take.
	var reasoning []string
	for i := range 50 {
		reasoning = append(reasoning, fmt.Sprintf(`{"choices":[{"index":0,"delta":{"reasoning_content":"hm"}}],"usage":{"completion_tokens":%d}}`, i+1))
	}
	reasoning = append(reasoning, textEvent("Hi", 51), "[DONE]")
	for _, honest := range [][]byte{omniStream(), sseStream(reasoning...)} {
		if r := do(t, Chat, replay{header: sseHeader, pieces: [][]byte{honest}}, Request{}); !r.OK() || len(r.Anomalies) != 0 {
			t.Fatalf("an honest stream flagged: %+v", r.Anomalies)
		}
	}
}

// The defaults: kilobyte events for text and audio, megabytes for images; the kept
// payloads are bounded as a body is.
func TestLimitsDefaultByEndpoint(t *testing.T) {
	t.Parallel()
	chat, img := Limits{}.Or(DefaultLimits(record.EndpointChat)), Limits{Event: 7}.Or(DefaultLimits(record.EndpointImages))
	if speech := (Limits{}).Or(DefaultLimits(record.EndpointSpeech)); speech.Event != 4<<20 {
		t.Errorf("speech %+v", speech)
	}
	if chat.Event != 16<<20 || chat.Body != 16<<20 || chat.Text != 1<<20 || chat.Chunks != 1<<17 || chat.Kept != chat.Body {
		t.Errorf("chat %+v", chat)
	}
	if img.Event != 7 || img.Body != 64<<20 || img.Kept != img.Body {
		t.Errorf("images %+v", img)
	}
}

// A target's user info goes as Basic authorization, in a header the record's redaction
// knows (net/http would add it where no redaction sees it), unless a bearer key is sent.
func TestUserInfoGoesAsARedactedHeader(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ url, auth, wantURL, want string }{
		{"http://h:8000/v1", "", "http://h:8000/v1", ""},
		{"https://u:p@h/v1", "", "https://h/v1", "Basic dTpw"},
		{"ws://u:p@h/s", "Bearer sk", "ws://h/s", "Bearer sk"},
	} {
		u, _ := url.Parse(tc.url)
		h := http.Header{}
		if tc.auth != "" {
			h.Set("Authorization", tc.auth)
		}
		userInfoAsHeader(u, h)
		if u.String() != tc.wantURL || h.Get("Authorization") != tc.want {
			t.Errorf("%s: %s with %q", tc.url, u, h.Get("Authorization"))
		}
	}
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		_ = r.Header.Write(w)
	})
	s := serve(t, echo)
	r := Chat(context.Background(), s.Client(), Request{URL: strings.Replace(s.URL, "http://", "http://omnik:pw-secret@", 1)})
	if r.Err == nil || strings.Contains(r.Err.Message, "b21uaWs6cHctc2VjcmV0") || !strings.Contains(r.Err.Message, "Authorization: REDACTED") {
		t.Fatalf("err %q", r.Err)
	}
}
