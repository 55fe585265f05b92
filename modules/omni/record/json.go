package record

import (
	"encoding/json"
	"math"
	"time"
)

// Schema names the JSON shape of a request record (docs/metrics.md, "Request records"):
// snake_case keys, offsets from the start as float milliseconds in "…_ms" keys, counts as
// integers. A change that renames or re-types a key bumps it.
const Schema = "omnik.record/v1"

// Millis is a duration as JSON float milliseconds, the unit of every "…_ms" key.
func Millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// fromMillis is the inverse of Millis, exact for any offset a request can have.
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

// Offsets are times from the request's start, as a JSON array of float milliseconds.
type Offsets []time.Duration

// MarshalJSON implements json.Marshaler.
func (o Offsets) MarshalJSON() ([]byte, error) {
	ms := make([]float64, len(o))
	for i, d := range o {
		ms[i] = Millis(d)
	}
	return json.Marshal(ms)
}

// UnmarshalJSON implements json.Unmarshaler.
func (o *Offsets) UnmarshalJSON(b []byte) error {
	var ms []float64
	if err := json.Unmarshal(b, &ms); err != nil {
		return err
	}
	*o = make(Offsets, len(ms))
	for i, v := range ms {
		(*o)[i] = fromMillis(v)
	}
	return nil
}

type textChunkJSON struct {
	AtMS   float64 `json:"at_ms"`
	Bytes  int32   `json:"bytes"`
	Tokens int32   `json:"tokens"`
}

// MarshalJSON implements json.Marshaler: {"at_ms":12.5,"bytes":5,"tokens":3}.
func (c TextChunk) MarshalJSON() ([]byte, error) {
	return json.Marshal(textChunkJSON{Millis(c.At), c.Bytes, c.Tokens})
}

// UnmarshalJSON implements json.Unmarshaler.
func (c *TextChunk) UnmarshalJSON(b []byte) error {
	var j textChunkJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*c = TextChunk{At: fromMillis(j.AtMS), Bytes: j.Bytes, Tokens: j.Tokens}
	return nil
}

type audioChunkJSON struct {
	AtMS   float64 `json:"at_ms"`
	Bytes  int64   `json:"bytes"`
	Frames int64   `json:"frames"`
}

// MarshalJSON implements json.Marshaler: {"at_ms":40.1,"bytes":9600,"frames":4800}.
func (c AudioChunk) MarshalJSON() ([]byte, error) {
	return json.Marshal(audioChunkJSON{Millis(c.At), c.Bytes, c.Frames})
}

// UnmarshalJSON implements json.Unmarshaler.
func (c *AudioChunk) UnmarshalJSON(b []byte) error {
	var j audioChunkJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*c = AudioChunk{At: fromMillis(j.AtMS), Bytes: j.Bytes, Frames: j.Frames}
	return nil
}

type utteranceJSON struct {
	Index        int      `json:"index"`
	Text         string   `json:"text"`
	StartMS      float64  `json:"start_ms"`
	ReadyMS      *float64 `json:"ready_ms"`
	FirstAudioMS *float64 `json:"first_audio_ms"`
	DoneMS       *float64 `json:"done_ms"`
	Frames       int64    `json:"frames"`
	Seconds      float64  `json:"seconds"`
}

// MarshalJSON implements json.Marshaler; an unknown ready, first audio or done is null.
func (u Utterance) MarshalJSON() ([]byte, error) {
	return json.Marshal(utteranceJSON{
		Index: u.Index, Text: u.Text, StartMS: Millis(u.Start), ReadyMS: optMillis(u.Ready),
		FirstAudioMS: optMillis(u.FirstAudio), DoneMS: optMillis(u.Done), Frames: u.Frames, Seconds: u.Seconds,
	})
}

// UnmarshalJSON implements json.Unmarshaler.
func (u *Utterance) UnmarshalJSON(b []byte) error {
	var j utteranceJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*u = Utterance{
		Index: j.Index, Text: j.Text, Start: fromMillis(j.StartMS), Ready: fromOptMillis(j.ReadyMS),
		FirstAudio: fromOptMillis(j.FirstAudioMS), Done: fromOptMillis(j.DoneMS), Frames: j.Frames, Seconds: j.Seconds,
	}
	return nil
}
