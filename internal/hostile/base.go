package hostile

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Model is the model the server lists; scenarios name it so no lookup is needed.
const Model = "hostile/omni"

// Sizes of the healthy responses: the audio is 24 kHz PCM16 mono, in pieces of 0.1 s.
const (
	sampleRate  = 24000
	pieceFrames = 2400
	imageW      = 64
	imageH      = 48
)

// response is an endpoint's answer, which a fault bends: the SSE events, the body in the
// pieces it is flushed in, or the websocket messages sent after the client's input.done.
type response struct {
	header http.Header // of the 200
	events []event
	body   [][]byte
	msgs   []message
}

// event is one server-sent event; name is its `event:` line, "" for none.
type event struct {
	name string
	data []byte
}

// message is one websocket message.
type message struct {
	binary bool
	data   []byte
}

// parts is what a response says before it is encoded for an endpoint. The faults that
// change what is said (a usage claim, broken audio, corrupt base64) change these.
type parts struct {
	id    string
	text  []string // the text, piece by piece
	audio [][]byte // audio payloads: standalone WAVs (chat) or a PCM stream in pieces
	wav   bool     // the audio is WAV: the Content-Type, response_format and format say so
	image []byte   // a PNG
	// claim, when not 0, is the output token count the final usage claims.
	claim int
	// b64 encodes audio and images; faults corrupt it.
	b64 func([]byte) string
	// chunked sends the websocket's audio as audio.chunk (base64) messages instead of
	// binary frames.
	chunked bool
}

// healthyParts is what every endpoint says when nothing is wrong.
func healthyParts(ep Endpoint) *parts {
	p := &parts{id: "chatcmpl-hostile", text: []string{"Hello", " there", "."}, image: pngImage,
		b64: base64.StdEncoding.EncodeToString}
	if ep == ChatStream || ep == ChatJSON {
		p.audio, p.wav = [][]byte{wavFile(pcm(0)), wavFile(pcm(1))}, true
	} else {
		p.audio = [][]byte{pcm(0), pcm(1), pcm(2), pcm(3)}
	}
	return p
}

// healthy is an endpoint's answer when nothing is wrong.
func healthy(ep Endpoint) *response { return build(ep, healthyParts(ep)) }

// build encodes p as ep answers, in vLLM-Omni's formats (those the simulator, mock/, speaks).
func build(ep Endpoint, p *parts) *response {
	switch ep {
	case ChatStream:
		return chatStream(p)
	case ChatJSON:
		return chatJSON(p)
	case Images:
		return &response{header: jsonHeader(), body: halves(mustJSON(map[string]any{
			"created": 1, "data": []any{imageEntry(p)}, "output_format": "png",
			"size": fmt.Sprintf("%dx%d", imageW, imageH), "stage_durations": map[string]float64{"diffusion_gen_ms": 42}}))}
	case ImagesEdit:
		return imagesEdit(p)
	case SpeechRaw:
		return speechRaw(p)
	case SpeechSSE:
		return speechSSE(p)
	}
	return audioStream(p)
}

func chatStream(p *parts) *response {
	chunk := func(delta map[string]any, modality string, usage any) event {
		c := map[string]any{"id": p.id, "object": "chat.completion.chunk", "created": 1, "model": Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": nil}}}
		if modality != "" {
			c["modality"] = modality
		}
		if usage != nil {
			c["usage"] = usage
		}
		return event{data: mustJSON(c)}
	}
	var evs []event
	for i, t := range p.text {
		evs = append(evs, chunk(map[string]any{"role": "assistant", "content": t}, "text", usage(i+1)))
	}
	for _, a := range p.audio {
		evs = append(evs, chunk(map[string]any{"role": "assistant", "content": p.b64(a)}, "audio", usage(0)))
	}
	final := map[string]any{"id": p.id, "object": "chat.completion.chunk", "created": 1, "model": Model,
		"choices": []any{}, "usage": usage(p.completion())}
	evs = append(evs, event{data: mustJSON(final)}, done)
	return &response{header: sseHeader(), events: evs}
}

func chatJSON(p *parts) *response {
	choice := func(msg map[string]any) map[string]any {
		return map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": "stop"}
	}
	audio := map[string]any{"id": "audio-hostile", "data": p.b64(p.audio[0]), "expires_at": 1, "transcript": ""}
	body := map[string]any{"id": p.id, "object": "chat.completion", "created": 1, "model": Model,
		"choices": []any{choice(map[string]any{"role": "assistant", "content": strings.Join(p.text, "")}),
			choice(map[string]any{"role": "assistant", "content": nil, "audio": audio})},
		"usage": usage(p.completion())}
	return &response{header: jsonHeader(), body: halves(mustJSON(body))}
}

func imagesEdit(p *parts) *response {
	var evs []event
	for i, t := range p.text {
		n := i + 1
		if i == len(p.text)-1 {
			n = p.completion()
		}
		evs = append(evs, event{data: mustJSON(map[string]any{"object": "image.edit.chunk", "created": 1, "model": Model,
			"type": "ar_delta", "index": 0, "delta": t, "usage": usage(n)})})
	}
	evs = append(evs, event{data: mustJSON(map[string]any{"object": "image.edit.chunk", "created": 1, "model": Model,
		"type": "image", "data": []any{imageEntry(p)}, "output_format": "png", "size": fmt.Sprintf("%dx%d", imageW, imageH)})}, done)
	return &response{header: sseHeader(), events: evs}
}

func speechRaw(p *parts) *response {
	h := http.Header{}
	h.Set("Content-Type", "audio/pcm")
	if p.wav {
		h.Set("Content-Type", "audio/wav")
	}
	out := p.speechTokens()
	h.Set("X-Vllm-Omni-Input-Tokens", "5")
	h.Set("X-Vllm-Omni-Output-Tokens", strconv.Itoa(out))
	h.Set("X-Vllm-Omni-Total-Tokens", strconv.Itoa(5+out))
	return &response{header: h, body: p.audio}
}

func speechSSE(p *parts) *response {
	var evs []event
	for _, a := range p.audio {
		evs = append(evs, event{name: "speech.audio.delta", data: mustJSON(map[string]any{
			"type": "speech.audio.delta", "audio": p.b64(a), "response_format": p.format()})})
	}
	out := p.speechTokens()
	evs = append(evs, event{name: "speech.audio.done", data: mustJSON(map[string]any{"type": "speech.audio.done",
		"usage": map[string]any{"input_tokens": 5, "output_tokens": out, "total_tokens": 5 + out}})})
	return &response{header: sseHeader(), events: evs}
}

func audioStream(p *parts) *response {
	text := message{data: mustJSON(map[string]any{"type": "audio.start", "utterance_index": 0, "sentence_index": 0,
		"sentence_text": strings.Join(p.text, ""), "format": p.format(), "sample_rate": sampleRate, "channels": 1})}
	msgs := []message{text}
	total := 0
	for _, a := range p.audio {
		total += len(a)
		if p.chunked {
			msgs = append(msgs, message{data: mustJSON(map[string]any{"type": "audio.chunk", "audio_b64": p.b64(a)})})
		} else {
			msgs = append(msgs, message{binary: true, data: a})
		}
	}
	msgs = append(msgs,
		message{data: mustJSON(map[string]any{"type": "audio.done", "utterance_index": 0, "sentence_index": 0, "total_bytes": total, "error": false})},
		message{data: mustJSON(map[string]any{"type": "session.done", "utterance_index": 0, "total_sentences": 1})})
	return &response{msgs: msgs}
}

// done is the [DONE] that ends chat and image edit streams.
var done = event{data: []byte("[DONE]")}

func (p *parts) format() string {
	if p.wav {
		return "wav"
	}
	return "pcm"
}

// completion is the output token count the usage reports: one a text piece, or the claim.
func (p *parts) completion() int {
	if p.claim != 0 {
		return p.claim
	}
	return len(p.text)
}

// speechTokens is a speech response's output tokens: 12 codec tokens a piece (12 Hz), or
// the claim.
func (p *parts) speechTokens() int {
	if p.claim != 0 {
		return p.claim
	}
	return 12 * len(p.audio)
}

func imageEntry(p *parts) map[string]any {
	return map[string]any{"b64_json": p.b64(p.image), "url": nil, "revised_prompt": nil}
}

func usage(completion int) map[string]int {
	return map[string]int{"prompt_tokens": 5, "completion_tokens": completion, "total_tokens": 5 + completion}
}

func sseHeader() http.Header {
	return http.Header{"Content-Type": {"text/event-stream; charset=utf-8"}, "Cache-Control": {"no-cache"}}
}

func jsonHeader() http.Header { return http.Header{"Content-Type": {"application/json"}} }

// halves splits a body in two pieces, so a fault can act between them.
func halves(b []byte) [][]byte { return [][]byte{b[:len(b)/2], b[len(b)/2:]} }

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("hostile: encoding %T: %v", v, err))
	}
	return b
}
