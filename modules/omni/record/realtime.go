package record

import "time"

// Turn is a record's place in a realtime session (omni.realtime): one record per turn,
// the user's speech and the response to it. The record starts at the end of the
// speech (the commit, or with server VAD the last speech append), so its TTFT,
// AUDIO_TTFP, AUDIO_RTF and E2EL are measured from the moment the user stopped talking
// and started waiting, as vLLM-Omni's realtime benchmark measures them; the upload
// before it is SpeechSeconds of audio.
type Turn struct {
	// Session is the server's session id (session.created), else one omnik made.
	Session string  `json:"session"`
	Index   int     `json:"turn"`     // 0-based, in the order the turns were spoken
	Lane    string  `json:"lane"`     // the protocol spoken: RealtimeOmni, RealtimeOpenAI, RealtimeASR
	Duplex  bool    `json:"duplex"`   // the full-duplex lane (?duplex=1, /v1/duplex)
	Speech  float64 `json:"speech_s"` // seconds of user audio the turn sent
	// BargeIn is set when the turn's speech started while the previous response was still
	// playing: after its first audio and before its end or its audio's playback end.
	BargeIn bool `json:"barge_in,omitempty"`
	// Outcome is how the response ended: TurnCompleted, TurnCancelled (status cancelled,
	// a barge-in's usual end), TurnListen (the duplex model chose to keep listening);
	// empty for a failed turn.
	Outcome string `json:"outcome,omitempty"`
	// Last marks the session's last record, which carries the session's outcome: the
	// session failed when that record did, and Completed of Planned turns succeeded.
	Last      bool `json:"last,omitempty"`
	Completed int  `json:"completed,omitempty"`
	Planned   int  `json:"planned,omitempty"`
}

// Realtime protocols (Turn.Lane).
const (
	RealtimeOmni   = "vllm-omni" // vLLM-Omni's default: vLLM's ASR events plus response.audio.delta
	RealtimeOpenAI = "openai"    // OpenAI GA events (vLLM-Omni's Qwen3-Omni lane, the duplex lane)
	RealtimeASR    = "vllm"      // vLLM's transcription-only realtime: a turn ends at transcription.done
)

// Turn outcomes.
const (
	TurnCompleted = "completed"
	TurnCancelled = "cancelled"
	TurnListen    = "listen"
)

// AnomalyUnknownEvent: a realtime server event of a type omnik does not know; it was
// counted and ignored.
const AnomalyUnknownEvent = "unknown_event"

// SetTurn places the record in its realtime session.
func (b *Builder) SetTurn(t Turn) { b.r.Realtime = &t }

// AnomalyEarlyResponse: a realtime response event arrived before the end of the turn's
// speech; it counts in the turn at offset 0.
const AnomalyEarlyResponse = "response_before_speech_end"

// Rebase moves the record's start to t, the end of a realtime turn's speech: what
// arrived before it is placed at 0 and flagged, since a turn's times run from the
// moment the user stopped talking. An intended start moves with it: the first turn's
// start lag stays the dial's, not the dial's plus the speech.
func (b *Builder) Rebase(t time.Time) {
	shift := t.Sub(b.r.Start)
	b.r.Start = t
	if !b.r.IntendedStart.IsZero() {
		b.r.IntendedStart = b.r.IntendedStart.Add(shift)
	}
	early := 0
	move := func(at *time.Duration) {
		if *at -= shift; *at < 0 {
			*at, early = 0, early+1
		}
	}
	for i := range b.r.TextChunks {
		move(&b.r.TextChunks[i].At)
	}
	for i := range b.r.AudioChunks {
		move(&b.r.AudioChunks[i].At)
	}
	for range early {
		b.Flag(AnomalyEarlyResponse, "a response event arrived before the end of the turn's speech; counted at the end of speech")
	}
}

// Err is the request's failure so far; nil while it has none.
func (b *Builder) Err() *Error { return b.r.Err }
