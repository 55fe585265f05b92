// Package record holds what one omni request measured: status, error, every chunk's
// arrival by modality, tokens, audio, images and the server's stage metrics. Records are
// the result stream of a run (stream.go): every number omnik prints, gates on or writes
// is computed from them by its subscribers, with the per-request metrics defined once
// (metrics.go, measures.go), and a record file written by the codec (codec.go) feeds the
// same subscribers offline.
package record

import (
	"sort"
	"strconv"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
)

// Endpoints, as the `endpoint` tag spells them.
const (
	EndpointChat        = "chat"
	EndpointSpeech      = "speech"
	EndpointImages      = "images"
	EndpointImageEdit   = "images_edit"
	EndpointAudioStream = "audio_stream"
	EndpointRealtime    = "realtime" // one record per turn of a realtime session
	EndpointVideos      = "videos"
)

// Error kinds: the `error` tag of a failed request.
const (
	KindHTTPStatus  = "http_status"        // non-2xx response
	KindStreamError = "stream_error_event" // an error event inside a 200 stream
	KindTruncated   = "stream_truncated"   // the stream ended before its terminator
	KindReset       = "connection_reset"   // the connection failed mid-response
	KindConnect     = "connect"            // the request never got a response
	KindTLS         = "tls"                // TLS failed: a certificate that does not verify, a refused client certificate
	KindMalformed   = "malformed_event"    // an event or body that is not the JSON expected
	KindStall       = "stall_timeout"      // no event for longer than the stall timeout
	KindTimeout     = "timeout"            // the whole request took longer than its timeout
	KindInterrupted = "interrupted"        // the run stopped the request: not the server's failure
	KindWAVBroken   = "wav_broken"         // an audio chunk whose WAV header cannot be read
	KindOversized   = "oversized_event"    // an event larger than the reader accepts
	KindJobFailed   = "job_failed"         // an async job (a video) reported status failed
)

// ErrorKinds are the error kinds a request may fail with, for what names them before
// any request has (a gate of omnik compare on failures of one kind).
func ErrorKinds() []string {
	return []string{KindHTTPStatus, KindStreamError, KindTruncated, KindReset, KindConnect, KindMalformed,
		KindStall, KindTimeout, KindWAVBroken, KindOversized, KindTLS, KindJobFailed}
}

// Metadata keys of a mirrored call's records (omni.client({mirror: true})): each record
// the call made carries the call's pair id and how many records it made, so a view pairs
// them whatever order they arrive in (a merge of several files included). Metadata, not
// tags: a tag would make a series of every pair.
const (
	MetaPair     = "pair"
	MetaPairSize = "pair_size"
)

// DefaultTarget is the `target` tag of the default client's requests in a run that made
// other clients, and what a request without the tag was sent to.
const DefaultTarget = "default"

// Error says why a request failed.
type Error struct {
	Kind    string `json:"kind"`    // one of the Kind constants
	Message string `json:"message"` // what and where, for humans
}

func (e *Error) Error() string { return e.Kind + ": " + e.Message }

// Record is one request's measurements. Times are offsets from Start on the monotonic
// clock, so a record can be drawn on a timeline without mixing clocks.
type Record struct {
	Endpoint  string
	RequestID string // the response id (chatcmpl-…) or a server request id
	Status    int    // HTTP status, 0 when no response arrived
	Err       *Error // nil when the request succeeded
	// Scenario is the scenario whose iteration made the request; empty in setup and
	// teardown. Its summary block groups by it, whatever the tags say.
	Scenario string
	Tags     map[string]string
	Metadata map[string]string // the iteration's metadata (execution.vu.metadata), for outputs
	Start    time.Time         // just before the request was written
	// Offset is Start on the run's timeline: the monotonic time since the run's origin.
	// Offsets place requests against each other and against scenario starts (peaks, the
	// benchmark duration) the same way live and from a record file.
	Offset        time.Duration
	IntendedStart time.Time // when the executor meant to start it; zero when unscheduled
	End           time.Duration
	// Sent is when the request was written in full, Connect how long a new connection
	// took to open (zero on a reused one): the client's own set-up, inside every latency
	// measured from Start, kept apart so a VU's first request can be told from the rest.
	// Zero when unknown (websocket sessions, older files).
	Sent, Connect time.Duration

	Text        string
	TextChunks  []TextChunk
	TextSent    []time.Duration // websocket sessions: when each input.text piece was sent
	Utterances  []Utterance     // websocket sessions: one per synthesized sentence
	AudioChunks []AudioChunk
	ImageTimes  []time.Duration

	Usage  Usage
	Audio  Audio
	Images Images
	Video  Video // async video jobs only
	// Stages merges every chunk's metrics.stage_metrics by stage id, a later entry
	// replacing an earlier one, so each stage yields exactly one row.
	Stages map[string]chunk.Stage
	// Edges is the server's stream-edge snapshot by edge ("0->1:0"), the latest one
	// received: the first events of each hand-off between stages (edges.go).
	Edges map[string]chunk.Edge
	// BytesSent and BytesReceived count the request and response body bytes (multipart
	// and SSE included, headers not), or a websocket session's message payloads.
	BytesSent, BytesReceived int64
	// Anomalies are what a request got wrong without failing (or what omnik cut from it),
	// one entry per kind.
	Anomalies []Anomaly
	// Realtime places a realtime session's turn in its session; nil on other endpoints.
	Realtime *Turn
}

// OK reports a successful request.
func (r *Record) OK() bool { return r.Err == nil }

// Interrupted reports a request the run itself cut off (end of gracefulStop, an abort,
// a signal). It is neither a success nor the server's failure: every view counts it
// apart and keeps it out of failure rates and distributions.
func (r *Record) Interrupted() bool { return r.Err != nil && r.Err.Kind == KindInterrupted }

// Failed reports a request that failed for a reason other than the run stopping it.
func (r *Record) Failed() bool { return r.Err != nil && r.Err.Kind != KindInterrupted }

// FailureStatus is the HTTP status that tells r's failure apart from others of its kind
// (429s from 500s): 0 for a failure inside a response that was not refused (a 200, a
// websocket's 101) or without one.
func (r *Record) FailureStatus() int {
	if r.Status < 300 {
		return 0
	}
	return r.Status
}

// FailureGroup names a failure kind with the status that tells it apart, as the
// summary and the report list them: "http_status 429", "stall_timeout".
func FailureGroup(kind string, status int) string {
	if status == 0 {
		return kind
	}
	return kind + " " + strconv.Itoa(status)
}

// TextChunk is a text chunk that carried new, non-empty content.
type TextChunk struct {
	At     time.Duration
	Bytes  int32 // length of the new content
	Tokens int32 // running usage.completion_tokens on this chunk, -1 when absent
}

// Utterance is one sentence a websocket TTS session synthesized, from its audio.start
// to its audio.done.
type Utterance struct {
	Index      int
	Text       string        // sentence_text
	Start      time.Duration // audio.start arrived
	Ready      time.Duration // the piece that completed the sentence's text was sent; 0 when unknown
	FirstAudio time.Duration // first audio of the sentence; 0 when none came
	Done       time.Duration // audio.done arrived; 0 when it did not
	Frames     int64
	Seconds    float64
}

// TTFP is the wait for the sentence's first audio from when its text was all sent, else
// from its audio.start: servers that stream audio send audio.start with the first audio,
// so only the text side says how long the listener waited. The session's own time to
// first packet, from the start, is AudioTTFP.
func (u Utterance) TTFP() (time.Duration, bool) {
	from := u.Start
	if u.Ready > 0 {
		from = u.Ready
	}
	return u.FirstAudio - from, u.FirstAudio > 0
}

// RTF is the sentence's synthesis time (audio.start to audio.done) over its duration.
func (u Utterance) RTF() (float64, bool) {
	if u.Seconds <= 0 || u.Done <= 0 {
		return 0, false
	}
	return (u.Done - u.Start).Seconds() / u.Seconds, true
}

// AudioChunk is an audio chunk or raw stream read with its sample bytes.
type AudioChunk struct {
	At     time.Duration
	Bytes  int64 // sample bytes (headers excluded)
	Frames int64
}

// Usage is the request's token counts, from the server when it reports them.
type Usage struct {
	Prompt     int `json:"prompt_tokens"`
	Completion int `json:"completion_tokens"` // output tokens n, omni-metrics.md §3
	Total      int `json:"total_tokens"`
	// Estimated is set when the server reported no output tokens and Completion counts the
	// non-empty text chunks instead (omnik has no tokenizer).
	Estimated bool `json:"estimated"`
	// PromptSource says where Prompt came from: PromptFromServer or PromptFromDataset;
	// empty when nothing counted the prompt.
	PromptSource string `json:"prompt_tokens_source,omitempty"`
}

// Where a request's prompt token count came from.
const (
	PromptFromServer  = "server"  // the server's usage
	PromptFromDataset = "dataset" // the client's count of the prompt it sent
)

// ResolvePrompt settles the prompt count of a finished request: the server's when its
// usage had one, else n, the client's count of the prompt it sent (0 when it has none).
// Speech and image servers report no prompt tokens; vllm bench serve counts the
// dataset's prompt length there.
func (u *Usage) ResolvePrompt(n int) {
	switch {
	case u.Prompt > 0:
		u.PromptSource = PromptFromServer
	case n > 0:
		u.Prompt, u.PromptSource = n, PromptFromDataset
	}
}

// Audio sums the audio a request received.
type Audio struct {
	Format     string  `json:"format"` // wav, pcm, …
	SampleRate int     `json:"sample_rate"`
	Channels   int     `json:"channels"`
	FrameBytes int     `json:"frame_bytes"` // bytes per frame, for byte-based continuity
	Frames     int64   `json:"frames"`
	Bytes      int64   `json:"bytes"` // sample bytes
	Seconds    float64 `json:"seconds"`
	// Mixed is set when chunks disagreed on rate or channels; Seconds still sums each
	// chunk at its own rate.
	Mixed   bool   `json:"mixed"`
	Samples []byte `json:"-"` // only when the caller asked to keep audio; never in records
}

// Images sums the images a request received.
type Images struct {
	Count  int   `json:"count"`
	Width  int   `json:"width"`  // of the first image
	Height int   `json:"height"` // of the first image
	Pixels int64 `json:"pixels"` // Σ width·height of the images whose size could be read
	// StageDurations and PeakMemoryMB are the server's profile of the request, from any
	// endpoint (a speech or chat response carries them too, with no image).
	StageDurations chunk.Durations `json:"stage_durations,omitempty"`
	PeakMemoryMB   float64         `json:"peak_memory_mb,omitempty"`
	Data           [][]byte        `json:"-"` // only when the caller asked to keep images; never in records
}

// StageIDs returns the stage ids in ascending numeric order.
func (r *Record) StageIDs() []string {
	ids := make([]string, 0, len(r.Stages))
	for id := range r.Stages {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		a, errA := strconv.Atoi(ids[i])
		b, errB := strconv.Atoi(ids[j])
		if errA != nil || errB != nil {
			return ids[i] < ids[j]
		}
		return a < b
	})
	return ids
}
