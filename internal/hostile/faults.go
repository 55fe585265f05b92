package hostile

import (
	"bytes"
	"encoding/base64"
	"math"
	"time"
)

// Fault is one way of misbehaving and what it does on each endpoint it applies to.
type Fault struct {
	Name string
	Doc  string // what the server does, for docs/faults.md
	// Ask holds, by endpoint, request fields (JavaScript object members) a scenario adds
	// for the fault to bite: a WAV fault on speech SSE needs response_format wav.
	Ask  map[Endpoint]string
	acts acts
}

// Applies reports whether f does something on ep.
func (f Fault) Applies(ep Endpoint) bool { return f.acts[ep] != nil }

// acts is what a fault does, endpoint by endpoint.
type acts map[Endpoint]act

// on applies a to the endpoints eps.
func on(a act, eps ...Endpoint) acts {
	m := acts{}
	for _, ep := range eps {
		m[ep] = a
	}
	return m
}

// and adds what the fault does on ep.
func (m acts) and(ep Endpoint, a act) acts {
	m[ep] = a
	return m
}

// Endpoint groups, for the faults that apply to some only.
var (
	all       = Endpoints()
	plainHTTP = []Endpoint{ChatStream, ChatJSON, Images, ImagesEdit, SpeechRaw, SpeechSSE} // all but the websocket
	bodies    = []Endpoint{ChatJSON, Images, SpeechRaw}                                    // one body, where an error is a whole 200
	sse       = []Endpoint{ChatStream, ImagesEdit, SpeechSSE}
	streams   = []Endpoint{ChatStream, ImagesEdit, SpeechSSE, AudioStream}
	audio     = []Endpoint{ChatStream, ChatJSON, SpeechRaw, SpeechSSE, AudioStream}
	base64s   = []Endpoint{ChatStream, ChatJSON, Images, ImagesEdit, SpeechSSE, AudioStream}
)

// wavAsk makes speech SSE ask for WAV: with pcm asked, its payloads are not parsed.
var wavAsk = map[Endpoint]string{SpeechSSE: "response_format: 'wav'"}

// Faults is every fault, in the matrix's row order.
var Faults = []Fault{
	{Name: "healthy", Doc: "vLLM-Omni's answer, nothing wrong: what every other row bends", acts: on(serve, all...)},

	{Name: "status_400_json", Doc: "HTTP 400 with vLLM's JSON error body (websocket: the handshake refused)",
		acts: on(respond(400, "application/json", errorBody(400, "BadRequestError")), all...)},
	{Name: "status_500_json", Doc: "HTTP 500 with vLLM's JSON error body",
		acts: on(respond(500, "application/json", errorBody(500, "InternalServerError")), all...)},
	{Name: "status_502_html", Doc: "HTTP 502 with a proxy's HTML page",
		acts: on(respond(502, "text/html", []byte(proxyPage)), all...)},
	{Name: "status_503_non_utf8", Doc: "HTTP 503 whose body is Latin-1, not UTF-8",
		acts: on(respond(503, "text/plain; charset=iso-8859-1", []byte("Service indisponible: r\xe9essayez plus tard \xff\xfe")), all...)},
	{Name: "ok_html", Doc: "HTTP 200 with an HTML page (a login portal); websocket: 200 instead of 101",
		acts: on(respond(200, "text/html; charset=utf-8", []byte(loginPage)), all...)},
	{Name: "empty_200", Doc: "HTTP 200 with the endpoint's Content-Type and no body; websocket: closed normally at once",
		acts: on(empty, all...)},

	{Name: "error_event", Doc: "an error event after a few events (`{\"error\":{…}}`, speech.audio.error, websocket `error`); whole bodies: a 200 carrying the error",
		acts: on(jsonOK(errorEvent), bodies...).and(ChatStream, insert(2, "", errorEvent)).and(ImagesEdit, insert(1, "", errorEvent)).
			and(SpeechSSE, insert(2, "speech.audio.error", speechError)).
			and(AudioStream, insert(1, "", []byte(`{"type":"error","message":"Generation failed for utterance 0, sentence 0: engine died"}`)))},
	{Name: "error_response", Doc: "vLLM's ErrorResponse (`{\"object\":\"error\",\"message\":…,\"code\":500}`) as an event or as a 200 body",
		acts: on(jsonOK(errorResponse), bodies...).and(ChatStream, insert(2, "", errorResponse)).
			and(SpeechSSE, insert(2, "", errorResponse)).and(ImagesEdit, insert(1, "", errorResponse))},
	{Name: "malformed_json", Doc: "an event, body or message that is not JSON",
		acts: on(jsonOK(notJSON), bodies...).and(ChatStream, insert(2, "", notJSON)).and(ImagesEdit, insert(2, "", notJSON)).
			and(SpeechSSE, insert(2, "speech.audio.delta", notJSON)).and(AudioStream, insert(1, "", notJSON))},
	{Name: "truncated_json", Doc: "an event, body or message whose JSON stops half-way (the response itself ends cleanly)",
		acts: on(cut(2), ChatStream, SpeechSSE).and(ImagesEdit, cut(1)).and(AudioStream, cut(0)).
			and(ChatJSON, cut(0)).and(Images, cut(0)).and(SpeechRaw, jsonOK(errorEvent[:len(errorEvent)/2]))},
	{Name: "wrong_types", Doc: "valid JSON with fields of the wrong type: a number for a string, a string for a number, an object for a list",
		acts: on(insert(2, "", []byte(`{"id":"chatcmpl-hostile","object":"chat.completion.chunk","choices":[{"index":"0","delta":{"content":42}}]}`)), ChatStream).
			and(ImagesEdit, insert(1, "", []byte(`{"object":"image.edit.chunk","type":"ar_delta","index":0,"delta":42}`))).
			and(SpeechSSE, insert(1, "speech.audio.delta", []byte(`{"type":"speech.audio.delta","audio":42}`))).
			and(AudioStream, insert(0, "", []byte(`{"type":"audio.start","sentence_index":"first","sample_rate":"fast","format":"pcm"}`))).
			and(ChatJSON, jsonOK([]byte(`{"id":"chatcmpl-hostile","object":"chat.completion","choices":{"index":0,"message":"Hello"}}`))).
			and(Images, jsonOK([]byte(`{"created":"yesterday","data":{"b64_json":42}}`)))},

	{Name: "reset_before_headers", Doc: "a TCP reset before any byte of the response", acts: on(resetNow, all...)},
	{Name: "reset_mid_stream", Doc: "a TCP reset after half the response", acts: on(midway(reset), all...)},
	{Name: "partial_headers", Doc: "half a header block, then silence", acts: on(partialHeaders, all...)},
	{Name: "slow_headers", Doc: "no answer at all: the headers never come", acts: on(never, all...)},
	{Name: "stall_mid_stream", Doc: "half the response, then silence with the connection open", acts: on(midway(hold), all...)},
	{Name: "slow_drip", Doc: "the response a byte every 250 ms: alive, but never a whole event", acts: on(drip, all...)},
	{Name: "short_body", Doc: "a Content-Length of the whole body, half of it, then a clean close", acts: on(shortBody, plainHTTP...)},
	{Name: "missing_done", Doc: "every event but the terminator ([DONE], speech.audio.done, session.done), then a clean close",
		acts: on(dropLast, streams...)},
	{Name: "fragmented", Doc: "the response in writes of 7 bytes (websocket: 7-byte continuation frames)", acts: on(fragmented, all...)},

	{Name: "sse_crlf", Doc: "SSE lines ended by CRLF", acts: on(framed(framing{eol: "\r\n"}), sse...)},
	{Name: "sse_cr", Doc: "SSE lines ended by a lone CR", acts: on(framed(framing{eol: "\r"}), sse...)},
	{Name: "sse_no_space", Doc: "`data:{…}`, no space after the colon", acts: on(framed(framing{eol: "\n", noSpace: true}), sse...)},
	{Name: "sse_multiline", Doc: "each event's JSON split over several data lines", acts: on(framed(framing{eol: "\n", multiline: true}), sse...)},
	{Name: "sse_comments", Doc: "a comment, an id and a retry line before every event", acts: on(framed(framing{eol: "\n", comments: true}), sse...)},
	{Name: "sse_bom", Doc: "a UTF-8 byte order mark before the first event", acts: on(framed(framing{eol: "\n", bom: true}), sse...)},
	{Name: "sse_unended", Doc: "the last event ([DONE], speech.audio.done) lacks its blank line", acts: on(framed(framing{eol: "\n", unended: true}), sse...)},

	{Name: "text_non_utf8", Doc: "text and the response id with bytes that are not UTF-8", acts: on(nonUTF8, ChatStream, ChatJSON, ImagesEdit, AudioStream)},
	{Name: "huge_usage", Doc: "the final usage claims 2³¹−1 output tokens (speech: the usage headers or speech.audio.done)",
		acts: on(bend(func(p *parts) { p.claim = math.MaxInt32 }), ChatStream, ChatJSON, ImagesEdit, SpeechRaw, SpeechSSE)},
	{Name: "unknown_modality", Doc: "a chunk of modality `video` between the text and the audio",
		acts: on(insert(3, "", []byte(`{"id":"chatcmpl-hostile","object":"chat.completion.chunk","created":1,"model":"`+Model+
			`","modality":"video","choices":[{"index":0,"delta":{"role":"assistant","content":"frame-0001"},"logprobs":null,"finish_reason":null}]}`)), ChatStream)},

	{Name: "truncated_wav", Doc: "a WAV cut inside its header", Ask: wavAsk,
		acts: on(bend(func(p *parts) { p.audio, p.wav = [][]byte{wavFile(pcm(0))[:30]}, true }), audio...)},
	{Name: "corrupt_wav", Doc: "a WAV whose fmt chunk says 0 channels at 0 Hz", Ask: wavAsk,
		acts: on(bend(func(p *parts) { p.audio, p.wav = [][]byte{corruptWAV()}, true }), audio...)},
	{Name: "wav_stream", Doc: "WAV streamed as vLLM-Omni streams it: the placeholder header (sizes 0xFFFFFFFF) before the first piece only", Ask: wavAsk,
		acts: on(bend(func(p *parts) {
			p.audio[0], p.wav = append(wavHeader(math.MaxUint32), p.audio[0]...), true
		}), SpeechRaw, SpeechSSE, AudioStream)},
	{Name: "corrupt_base64_head", Doc: "base64 of an image or a WAV (websocket: in audio.chunk) with characters outside the alphabet at its start",
		Ask: wavAsk, acts: on(bend(corrupt(0)), base64s...)},
	{Name: "corrupt_base64_tail", Doc: "the same near its end",
		Ask: wavAsk, acts: on(bend(corrupt(-8)), base64s...)},
	{Name: "truncated_image", Doc: "a PNG cut inside its header",
		acts: on(bend(func(p *parts) { p.image = p.image[:20] }), Images, ImagesEdit)},

	{Name: "huge_payload", Doc: "one 300 MB event, body or websocket frame", acts: on(huge, all...)},
	{Name: "endless_trickle", Doc: "a small valid event (bodies: 4 more bytes) every 10 ms, forever", acts: on(endless([]byte("AAAA"), 10*time.Millisecond), all...)},
	// A body floods unpaced: paced, the race of its limit against the request's timeout
	// was the machine's to decide.
	{Name: "endless_flood", Doc: "a 1 MiB event every 25 ms, forever (bodies: 1 MiB more after 1 MiB, unpaced); not raw speech, whose chunks are its reads: their count would be the machine's",
		acts: on(endless(mib, 25*time.Millisecond), ChatStream, ImagesEdit, SpeechSSE, AudioStream).
			and(ChatJSON, endless(mib, 0)).and(Images, endless(mib, 0))},
	{Name: "too_many_chunks", Doc: "140 000 tiny events (websocket: binary frames), then the terminator", acts: on(tooMany, streams...)},
	{Name: "keepalive_only", Doc: "only SSE comments (websocket: pings) every 100 ms, forever", acts: on(keepalive, streams...)},
}

// jsonOK answers 200 with a JSON body, as a server that reports its error in-band does.
func jsonOK(body []byte) act { return respond(200, "application/json", body) }

var (
	notJSON       = []byte("Internal Server Error")
	errorEvent    = errorBody(500, "InternalServerError")
	errorResponse = []byte(`{"object":"error","message":"engine died mid-stream","type":"InternalServerError","param":null,"code":500}`)
	speechError   = []byte(`{"type":"speech.audio.error","error":{"message":"engine died mid-stream","type":"InternalServerError","param":null,"code":500}}`)
)

// errorBody is vLLM's error body: {"error":{message,type,param,code}} with code the status.
func errorBody(code int, typ string) []byte {
	return mustJSON(map[string]any{"error": map[string]any{"message": "hostile: the engine failed", "type": typ, "param": nil, "code": code}})
}

const proxyPage = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"

const loginPage = `<!DOCTYPE html><html><head><title>Sign in</title></head><body><form action="/login" method="post"><input name="user"><input name="password" type="password"></form></body></html>`

// corrupt encodes images and audio as base64 with "!!!!" at byte at (from the end when
// negative). The audio is standalone WAVs: a PCM payload's base64 is never decoded,
// its length alone gives the frames.
func corrupt(at int) func(*parts) {
	return func(p *parts) {
		if !p.wav {
			for i, a := range p.audio {
				p.audio[i] = wavFile(a)
			}
			p.wav = true
		}
		p.chunked = true
		p.b64 = func(b []byte) string {
			s := []byte(base64.StdEncoding.EncodeToString(b))
			i := at
			if i < 0 {
				i += len(s)
			}
			copy(s[i:], "!!!!")
			return string(s)
		}
	}
}

// nonUTF8 sends text and an id holding 0xFF bytes, each standing for one character of
// the healthy text, so the byte counts stay those of the healthy response.
func nonUTF8(c *call) {
	p := healthyParts(c.ep)
	p.id, p.text = "chatcmpl-~~", []string{"Hel~o", " th~re", "."}
	c.res = build(c.ep, p)
	swap := func(b []byte) []byte { return bytes.ReplaceAll(b, []byte("~"), []byte{0xff}) }
	for i := range c.res.events {
		c.res.events[i].data = swap(c.res.events[i].data)
	}
	for i := range c.res.body {
		c.res.body[i] = swap(c.res.body[i])
	}
	for i := range c.res.msgs {
		c.res.msgs[i].data = swap(c.res.msgs[i].data)
	}
	serve(c)
}
