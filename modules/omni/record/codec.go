package record

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
)

// Schema names the JSON shape of a request record (docs/metrics.md, "Request records"):
// snake_case keys, offsets as float milliseconds in "…_ms" keys, counts as integers.
// A change that renames or re-types a key bumps the major version; a key added later
// bumps the minor one ("omnik.record/v2.1"), which older readers ignore.
const Schema = "omnik.record/v2.6"

const (
	schemaPrefix = "omnik.record/v"
	schemaMajor  = 2
)

// ErrNewerSchema and ErrOlderSchema are returned for a record of another major schema:
// its keys mean other things, so a file of them cannot be read.
var (
	ErrNewerSchema = errors.New("written by a newer omnik")
	ErrOlderSchema = errors.New("written by an older omnik")
)

// FieldError is a record that Decode cannot use: Field is its JSON key path.
type FieldError struct {
	Field  string
	Reason string
}

func (e *FieldError) Error() string { return fmt.Sprintf("field %q: %s", e.Field, e.Reason) }

// wire is the JSON shape of a record. Times within the request are offsets from its
// start; the start itself is the wall clock, Offset its monotonic place on the run's
// timeline, and start_lag_ms how late it left against its intended start.
type wire struct {
	Schema        string                 `json:"schema"`
	Endpoint      string                 `json:"endpoint"`
	RequestID     string                 `json:"request_id,omitempty"`
	Status        int                    `json:"status"`
	OK            bool                   `json:"ok"`
	Error         *Error                 `json:"error,omitempty"`
	Scenario      string                 `json:"scenario,omitempty"`
	Tags          map[string]string      `json:"tags,omitempty"`
	Metadata      map[string]string      `json:"metadata,omitempty"`
	Start         *time.Time             `json:"start"`
	OffsetMS      float64                `json:"offset_ms"`
	StartLagMS    *float64               `json:"start_lag_ms,omitempty"`
	SentMS        *float64               `json:"sent_ms,omitempty"`    // v2.6
	ConnectMS     *float64               `json:"connect_ms,omitempty"` // v2.6
	E2ELMS        *float64               `json:"e2el_ms"`
	BytesSent     int64                  `json:"bytes_sent"`
	BytesReceived int64                  `json:"bytes_received"`
	Usage         Usage                  `json:"usage"`
	TextChunks    []wireTextChunk        `json:"text_chunks,omitempty"`
	AudioChunks   []wireAudioChunk       `json:"audio_chunks,omitempty"`
	ImageMS       []float64              `json:"image_ms,omitempty"`
	Audio         *Audio                 `json:"audio,omitempty"`
	Images        *wireImages            `json:"images,omitempty"`
	Stages        map[string]chunk.Stage `json:"stages,omitempty"`
	StreamEdges   map[string]chunk.Edge  `json:"stream_edges,omitempty"` // v2.5
	TextSentMS    []float64              `json:"text_sent_ms,omitempty"`
	Utterances    []wireUtterance        `json:"utterances,omitempty"`
	Video         *wireVideo             `json:"video,omitempty"` // v2.4
	Anomalies     []Anomaly              `json:"anomalies,omitempty"`
	Realtime      *Turn                  `json:"realtime,omitempty"` // v2.3
}

// wireImages is Images with the order of its stage_durations keys, which the Stage
// Durations rows follow and a JSON object loses through tools that rewrite it (v2.5).
type wireImages struct {
	Images
	DurationKeys []string `json:"stage_duration_keys,omitempty"`
}

// ordered is the durations in the order of keys; keys not listed follow in their order.
func ordered(d chunk.Durations, keys []string) chunk.Durations {
	rank := make(map[string]int, len(keys))
	for i, k := range keys {
		if _, dup := rank[k]; !dup {
			rank[k] = i
		}
	}
	place := func(e chunk.Duration) int {
		if i, ok := rank[e.Key]; ok {
			return i
		}
		return len(keys)
	}
	out := slices.Clone(d)
	slices.SortStableFunc(out, func(a, b chunk.Duration) int { return cmp.Compare(place(a), place(b)) })
	return out
}

type wireTextChunk struct {
	AtMS   float64 `json:"at_ms"`
	Bytes  int32   `json:"bytes"`
	Tokens int32   `json:"tokens"` // running usage.completion_tokens, -1 when absent
}

type wireAudioChunk struct {
	AtMS   float64 `json:"at_ms"`
	Bytes  int64   `json:"bytes"`
	Frames int64   `json:"frames"`
}

type wireUtterance struct {
	Index        int      `json:"index"`
	Text         string   `json:"text"`
	StartMS      float64  `json:"start_ms"`
	ReadyMS      *float64 `json:"ready_ms"`
	FirstAudioMS *float64 `json:"first_audio_ms"`
	DoneMS       *float64 `json:"done_ms"`
	Frames       int64    `json:"frames"`
	Seconds      float64  `json:"seconds"`
}

// wireVideo is Video with its offsets in ms; content_ms is null when the content was
// not downloaded.
type wireVideo struct {
	JobID          string   `json:"job_id"`
	Status         string   `json:"status"`
	Polls          int      `json:"polls"`
	PollIntervalMS float64  `json:"poll_interval_ms"`
	PendingMS      float64  `json:"pending_ms"`
	ContentMS      *float64 `json:"content_ms"`
	Bytes          int64    `json:"bytes"`
	Seconds        float64  `json:"seconds"`
	Frames         int64    `json:"frames"`
	FPS            float64  `json:"fps"`
	Source         string   `json:"source,omitempty"`
	GenerationMS   float64  `json:"generation_ms"`
}

// Millis is a duration as JSON float milliseconds, the unit of every "…_ms" key.
func Millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// fromMillis is the inverse of Millis, exact for any offset a run can have (below 2⁵³ ns,
// 104 days).
func fromMillis(ms float64) time.Duration {
	return time.Duration(math.Round(ms * float64(time.Millisecond)))
}

// optMillis is an offset that may be unknown (zero): null in JSON.
func optMillis(d time.Duration) *float64 {
	if d == 0 {
		return nil
	}
	v := Millis(d)
	return &v
}

func fromOptMillis(ms *float64) time.Duration {
	if ms == nil {
		return 0
	}
	return fromMillis(*ms)
}

func millisList(ds []time.Duration) []float64 {
	if len(ds) == 0 {
		return nil
	}
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = Millis(d)
	}
	return out
}

func durations(ms []float64) []time.Duration {
	if len(ms) == 0 {
		return nil
	}
	out := make([]time.Duration, len(ms))
	for i, v := range ms {
		out[i] = fromMillis(v)
	}
	return out
}

// MarshalJSON encodes the record as schema Schema. Payloads (text, audio samples, image
// data) are never written: a record is what was measured, not what was said.
func (r *Record) MarshalJSON() ([]byte, error) {
	start := r.Start
	e2el := Millis(r.End)
	w := wire{
		Schema: Schema, Endpoint: r.Endpoint, RequestID: r.RequestID, Status: r.Status, OK: r.OK(), Error: r.Err,
		Scenario: r.Scenario, Tags: r.Tags, Metadata: r.Metadata, Start: &start, OffsetMS: Millis(r.Offset), E2ELMS: &e2el,
		BytesSent: r.BytesSent, BytesReceived: r.BytesReceived, Usage: r.Usage,
		ImageMS: millisList(r.ImageTimes), Stages: r.Stages, StreamEdges: r.Edges, TextSentMS: millisList(r.TextSent),
		Anomalies: r.Anomalies, Realtime: r.Realtime,
	}
	if !r.IntendedStart.IsZero() {
		lag := Millis(r.Start.Sub(r.IntendedStart))
		w.StartLagMS = &lag
	}
	w.SentMS, w.ConnectMS = optMillis(r.Sent), optMillis(r.Connect)
	if a := r.Audio; a.Format != "" || a.SampleRate != 0 || a.Frames != 0 || a.Bytes != 0 || a.Seconds != 0 {
		w.Audio = &r.Audio
	}
	if r.Images.Count > 0 || len(r.Images.StageDurations) > 0 || r.Images.PeakMemoryMB > 0 {
		w.Images = &wireImages{Images: r.Images}
		for _, d := range r.Images.StageDurations {
			w.Images.DurationKeys = append(w.Images.DurationKeys, d.Key)
		}
	}
	if v := r.Video; r.Endpoint == EndpointVideos {
		w.Video = &wireVideo{JobID: v.JobID, Status: v.Status, Polls: v.Polls, PollIntervalMS: Millis(v.PollInterval),
			PendingMS: Millis(v.Pending), ContentMS: optMillis(v.Content), Bytes: v.Bytes, Seconds: v.Seconds,
			Frames: v.Frames, FPS: v.FPS, Source: v.Source, GenerationMS: v.GenerationMS}
	}
	w.TextChunks = make([]wireTextChunk, len(r.TextChunks))
	for i, c := range r.TextChunks {
		w.TextChunks[i] = wireTextChunk{Millis(c.At), c.Bytes, c.Tokens}
	}
	w.AudioChunks = make([]wireAudioChunk, len(r.AudioChunks))
	for i, c := range r.AudioChunks {
		w.AudioChunks[i] = wireAudioChunk{Millis(c.At), c.Bytes, c.Frames}
	}
	w.Utterances = make([]wireUtterance, len(r.Utterances))
	for i, u := range r.Utterances {
		w.Utterances[i] = wireUtterance{Index: u.Index, Text: u.Text, StartMS: Millis(u.Start), ReadyMS: optMillis(u.Ready),
			FirstAudioMS: optMillis(u.FirstAudio), DoneMS: optMillis(u.Done), Frames: u.Frames, Seconds: u.Seconds}
	}
	return json.Marshal(w)
}

// Decode reads one record that MarshalJSON wrote, by this or an older minor version of
// the schema. Unknown keys are ignored. A record missing schema, endpoint, start or
// e2el_ms, or with a key of the wrong type or out of range, is a *FieldError; one of
// another major schema wraps ErrNewerSchema or ErrOlderSchema.
func Decode(data []byte) (*Record, error) {
	var w wire
	if err := json.Unmarshal(data, &w); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return nil, &FieldError{Field: te.Field, Reason: "want " + te.Type.String() + ", got a JSON " + te.Value}
		}
		return nil, &FieldError{Field: "(record)", Reason: err.Error()}
	}
	if err := checkSchema(w.Schema); err != nil {
		return nil, err
	}
	if err := w.inRange(); err != nil {
		return nil, err
	}
	switch {
	case w.Endpoint == "":
		return nil, &FieldError{Field: "endpoint", Reason: "missing"}
	case w.Start == nil:
		return nil, &FieldError{Field: "start", Reason: "missing"}
	case w.E2ELMS == nil:
		return nil, &FieldError{Field: "e2el_ms", Reason: "missing"}
	case w.OK != (w.Error == nil):
		return nil, &FieldError{Field: "error", Reason: "ok and error disagree"}
	}
	if w.Error != nil && w.Error.Kind == "canceled" {
		// v2.0 named an interruption by the run "canceled".
		w.Error.Kind = KindInterrupted
	}
	r := &Record{
		Endpoint: w.Endpoint, RequestID: w.RequestID, Status: w.Status, Err: w.Error, Scenario: w.Scenario,
		Tags: w.Tags, Metadata: w.Metadata, Start: *w.Start, Offset: fromMillis(w.OffsetMS), End: fromMillis(*w.E2ELMS),
		BytesSent: w.BytesSent, BytesReceived: w.BytesReceived, Usage: w.Usage,
		ImageTimes: durations(w.ImageMS), Stages: w.Stages, Edges: w.StreamEdges, TextSent: durations(w.TextSentMS),
		Anomalies: w.Anomalies, Realtime: w.Realtime,
	}
	if w.StartLagMS != nil {
		r.IntendedStart = r.Start.Add(-fromMillis(*w.StartLagMS))
	}
	r.Sent, r.Connect = fromOptMillis(w.SentMS), fromOptMillis(w.ConnectMS)
	if w.Audio != nil {
		r.Audio = *w.Audio
	}
	if w.Images != nil {
		r.Images = w.Images.Images
		r.Images.StageDurations = ordered(r.Images.StageDurations, w.Images.DurationKeys)
	}
	if v := w.Video; v != nil {
		r.Video = Video{JobID: v.JobID, Status: v.Status, Polls: v.Polls, PollInterval: fromMillis(v.PollIntervalMS),
			Pending: fromMillis(v.PendingMS), Content: fromOptMillis(v.ContentMS), Bytes: v.Bytes, Seconds: v.Seconds,
			Frames: v.Frames, FPS: v.FPS, Source: v.Source, GenerationMS: v.GenerationMS}
	}
	if len(w.TextChunks) > 0 {
		r.TextChunks = make([]TextChunk, len(w.TextChunks))
		for i, c := range w.TextChunks {
			r.TextChunks[i] = TextChunk{At: fromMillis(c.AtMS), Bytes: c.Bytes, Tokens: c.Tokens}
		}
	}
	if len(w.AudioChunks) > 0 {
		r.AudioChunks = make([]AudioChunk, len(w.AudioChunks))
		for i, c := range w.AudioChunks {
			r.AudioChunks[i] = AudioChunk{At: fromMillis(c.AtMS), Bytes: c.Bytes, Frames: c.Frames}
		}
	}
	if len(w.Utterances) > 0 {
		r.Utterances = make([]Utterance, len(w.Utterances))
		for i, u := range w.Utterances {
			r.Utterances[i] = Utterance{Index: u.Index, Text: u.Text, Start: fromMillis(u.StartMS), Ready: fromOptMillis(u.ReadyMS),
				FirstAudio: fromOptMillis(u.FirstAudioMS), Done: fromOptMillis(u.DoneMS), Frames: u.Frames, Seconds: u.Seconds}
		}
	}
	return r, nil
}

// maxMS bounds every offset a record holds (about 115 days, longer than any run), so
// arithmetic on the durations a file claims cannot overflow.
const maxMS = 1e10

// inRange refuses offsets beyond maxMS and negative counts: a file's claims must not
// size what its readers compute.
func (w *wire) inRange() error {
	bad := func(field string) error { return &FieldError{Field: field, Reason: "out of range"} }
	ms := func(v float64) bool { return math.Abs(v) <= maxMS }
	optMS := func(v *float64) bool { return v == nil || ms(*v) }
	switch {
	case !ms(w.OffsetMS):
		return bad("offset_ms")
	case !optMS(w.StartLagMS):
		return bad("start_lag_ms")
	case !optMS(w.SentMS) || w.SentMS != nil && *w.SentMS < 0:
		return bad("sent_ms")
	case !optMS(w.ConnectMS) || w.ConnectMS != nil && *w.ConnectMS < 0:
		return bad("connect_ms")
	case !optMS(w.E2ELMS):
		return bad("e2el_ms")
	case w.BytesSent < 0 || w.BytesReceived < 0:
		return bad("bytes_sent")
	case len(w.Anomalies) > maxAnomalyKinds:
		return bad("anomalies")
	case w.Realtime != nil && (w.Realtime.Index < 0 || w.Realtime.Completed < 0 || w.Realtime.Planned < 0 || !(w.Realtime.Speech >= 0)):
		return bad("realtime")
	}
	for _, a := range w.Anomalies {
		if a.Count < 0 {
			return bad("anomalies")
		}
	}
	for _, c := range w.TextChunks {
		if !ms(c.AtMS) || c.Bytes < 0 || c.Tokens < -1 {
			return bad("text_chunks")
		}
	}
	for _, c := range w.AudioChunks {
		if !ms(c.AtMS) || c.Bytes < 0 || c.Frames < 0 {
			return bad("audio_chunks")
		}
	}
	for field, list := range map[string][]float64{"image_ms": w.ImageMS, "text_sent_ms": w.TextSentMS} {
		for _, v := range list {
			if !ms(v) {
				return bad(field)
			}
		}
	}
	if v := w.Video; v != nil && (!ms(v.PollIntervalMS) || !ms(v.PendingMS) || !optMS(v.ContentMS) || v.Polls < 0 ||
		v.Bytes < 0 || v.Frames < 0 || !(v.Seconds >= 0 && v.Seconds <= MaxStageValue) || !(v.FPS >= 0 && v.FPS <= MaxStageValue) ||
		!(v.GenerationMS >= 0 && v.GenerationMS <= MaxStageValue)) {
		return bad("video")
	}
	for _, u := range w.Utterances {
		if !ms(u.StartMS) || !optMS(u.ReadyMS) || !optMS(u.FirstAudioMS) || !optMS(u.DoneMS) {
			return bad("utterances")
		}
	}
	return w.serverStatsInRange()
}

// serverStatsInRange holds a file's stage durations, peak memory and stream edges to
// what the builder keeps of a response (bounds.go, edges.go).
func (w *wire) serverStatsInRange() error {
	bad := func(field string) error { return &FieldError{Field: field, Reason: "out of range"} }
	if im := w.Images; im != nil {
		if _, ok := saneDurations(im.StageDurations); !ok || len(im.StageDurations) > MaxStages || len(im.DurationKeys) > MaxStages {
			return bad("images.stage_durations")
		}
		if !(im.PeakMemoryMB >= 0 && im.PeakMemoryMB <= MaxStageValue) {
			return bad("images.peak_memory_mb")
		}
	}
	if len(w.StreamEdges) > MaxStages {
		return bad("stream_edges")
	}
	for key, e := range w.StreamEdges {
		if _, _, _, ok := ParseEdge(key); !ok || len(e.Values) > maxEdgeEvents {
			return bad("stream_edges")
		}
		for _, v := range e.Values {
			if !(v >= 0 && v <= MaxStageValue) {
				return bad("stream_edges")
			}
		}
	}
	return nil
}

// checkSchema accepts "omnik.record/v2" and its minor versions ("…/v2.3").
func checkSchema(s string) error {
	if s == "" {
		return &FieldError{Field: "schema", Reason: "missing"}
	}
	version, ok := strings.CutPrefix(s, schemaPrefix)
	majorText, _, _ := strings.Cut(version, ".")
	major, err := strconv.Atoi(majorText)
	switch {
	case !ok || err != nil:
		return &FieldError{Field: "schema", Reason: fmt.Sprintf("%q is not an omnik record schema", s)}
	case major > schemaMajor:
		return fmt.Errorf("record schema %s: %w (this one reads %s)", s, ErrNewerSchema, Schema)
	case major < schemaMajor:
		return fmt.Errorf("record schema %s: %w (this one reads %s)", s, ErrOlderSchema, Schema)
	}
	return nil
}
