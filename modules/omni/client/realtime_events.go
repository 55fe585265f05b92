package client

import (
	"encoding/json"
	"fmt"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
)

// rtEvent is a server message of any realtime lane: vLLM's (transcription.*, error with
// a string), vLLM-Omni's (response.audio.delta with audio and sample_rate_hz,
// response.audio.done with has_audio), OpenAI GA and beta (response.output_audio.delta
// with delta, response.done) and the duplex extensions (response.listen). Fields a type
// does not use stay zero.
type rtEvent struct {
	Type string `json:"type"`
	// Delta is a text delta, or the audio of an OpenAI audio delta.
	Delta      chunk.String `json:"delta"`
	Audio      chunk.String `json:"audio"` // vLLM-Omni's audio delta
	SampleRate int          `json:"sample_rate_hz"`
	Usage      *chunk.Usage `json:"usage"` // transcription.done
	Session    *struct {
		ID string `json:"id"`
	} `json:"session"`
	Response *rtResponse     `json:"response"`
	Error    json.RawMessage `json:"error"`
	Code     json.RawMessage `json:"code"`
}

// rtResponse is the response object of response.created and response.done.
type rtResponse struct {
	ID            string       `json:"id"`
	Status        string       `json:"status"`
	Usage         *chunk.Usage `json:"usage"`
	StatusDetails *struct {
		Reason string          `json:"reason"`
		Error  json.RawMessage `json:"error"`
	} `json:"status_details"`
}

// parseRealtimeEvent decodes one text message. A message that is not a JSON object
// with a string type is an error; an unknown type is not (the caller counts it).
func parseRealtimeEvent(data []byte) (rtEvent, error) {
	var ev rtEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return rtEvent{}, err
	}
	if ev.Type == "" {
		return rtEvent{}, fmt.Errorf("a message without a type")
	}
	return ev, nil
}

// errorMessage is an error event's text: vLLM sends error as a string beside code,
// OpenAI and the duplex lane an object.
func (ev *rtEvent) errorMessage() string {
	msg := rawText(ev.Error)
	if code := rawText(ev.Code); code != "" {
		msg += " (code " + code + ")"
	}
	return msg
}

// rawText is a JSON error value as text: a string, an OpenAI error object, else the JSON.
func rawText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var e chunk.Error
	if json.Unmarshal(raw, &e) == nil && e.Message != "" {
		return errorText(&e)
	}
	return string(raw)
}

// The kinds of server event a turn's reader acts on.
const (
	rtIgnored = iota // known, nothing to measure
	rtUnknown
	rtSessionCreated // session.created: the session id
	rtText           // a text or transcript delta
	rtAudio          // an audio delta
	rtAudioDone      // response.audio.done, response.output_audio.done
	rtTextDone       // transcription.done: the text and usage
	rtCreated        // response.created
	rtDone           // response.done
	rtListen         // response.listen: the duplex model keeps listening
	rtError
)

// rtKinds names every event type omnik knows. The ignored ones are the lifecycle events
// of the three lanes that carry nothing a turn measures.
var rtKinds = map[string]int{
	"session.created": rtSessionCreated,
	"error":           rtError,

	"transcription.delta":                    rtText,
	"response.output_text.delta":             rtText,
	"response.text.delta":                    rtText,
	"response.audio_transcript.delta":        rtText,
	"response.output_audio_transcript.delta": rtText,

	"response.audio.delta":        rtAudio,
	"response.output_audio.delta": rtAudio,
	"response.audio.done":         rtAudioDone,
	"response.output_audio.done":  rtAudioDone,
	"transcription.done":          rtTextDone,
	"response.created":            rtCreated,
	"response.done":               rtDone,
	"response.listen":             rtListen,

	"session.updated": rtIgnored, "session.closed": rtIgnored, "session.heartbeat_ack": rtIgnored,
	"session.expired": rtIgnored, "input_audio_buffer.committed": rtIgnored,
	"input_audio_buffer.cleared": rtIgnored, "input_audio_buffer.speech_started": rtIgnored,
	"input_audio_buffer.speech_stopped": rtIgnored, "conversation.item.created": rtIgnored,
	"conversation.item.added": rtIgnored, "conversation.item.done": rtIgnored,
	"conversation.item.input_audio_transcription.completed": rtIgnored,
	"conversation.item.input_audio_transcription.delta":     rtIgnored,
	"conversation.item.truncated":                           rtIgnored, "conversation.item.deleted": rtIgnored,
	"response.output_item.added": rtIgnored, "response.output_item.done": rtIgnored,
	"response.content_part.added": rtIgnored, "response.content_part.done": rtIgnored,
	"response.output_text.done": rtIgnored, "response.text.done": rtIgnored,
	"response.output_audio_transcript.done": rtIgnored, "response.audio_transcript.done": rtIgnored,
	"response.speak": rtIgnored, "rate_limits.updated": rtIgnored, "overlap.decision": rtIgnored,
	"output_audio_buffer.cleared": rtIgnored, "playback.acknowledged": rtIgnored, "turn.event": rtIgnored,
}

// kind is what the reader does with ev.
func (ev *rtEvent) kind() int {
	k, ok := rtKinds[ev.Type]
	if !ok {
		return rtUnknown
	}
	return k
}

// payload is an audio delta's base64: vLLM-Omni's audio, else OpenAI's delta.
func (ev *rtEvent) payload() chunk.String {
	if len(ev.Audio) > 0 {
		return ev.Audio
	}
	return ev.Delta
}
