package chunk

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// String is a JSON string kept as bytes. Without escapes (base64, most text) it aliases
// the decoded input instead of copying it.
type String []byte

// UnmarshalJSON implements json.Unmarshaler.
func (s *String) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) >= 2 && b[0] == '"' && bytes.IndexByte(b, '\\') < 0:
		*s = b[1 : len(b)-1 : len(b)-1]
	case b[0] == '"':
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = String(v)
	case string(b) == "null":
		*s = nil
	default:
		return fmt.Errorf("want a string, got %.20s", b)
	}
	return nil
}

// Content is a message's content: a string, or (vLLM-Omni images, OpenAI input) a list
// of parts.
type Content struct {
	Text  String
	Parts []Part
}

// Part is one element of a list content.
type Part struct {
	Type     string `json:"type"`
	Text     String `json:"text"`
	ImageURL struct {
		URL String `json:"url"`
	} `json:"image_url"`
	StageDurations Durations `json:"stage_durations"`
	PeakMemoryMB   Number    `json:"peak_memory_mb"`
}

// UnmarshalJSON implements json.Unmarshaler.
func (c *Content) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '[' {
		return json.Unmarshal(b, &c.Parts)
	}
	return c.Text.UnmarshalJSON(b)
}

// Empty reports content with nothing in it (no text, no parts).
func (c Content) Empty() bool { return len(c.Text) == 0 && len(c.Parts) == 0 }

// Error is an error body or in-stream error event. vLLM's realtime API sends the error as
// a bare string, which lands in Message.
type Error struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Param   string `json:"param"`
	Code    string `json:"code"` // an int status on vLLM, a string or null on OpenAI
	// vLLM-Omni engine failures
	RequestID    string `json:"request_id"`
	ErrorStageID *int   `json:"error_stage_id"`
}

// UnmarshalJSON implements json.Unmarshaler.
func (e *Error) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &e.Message)
	}
	var raw struct {
		Message      string          `json:"message"`
		Type         string          `json:"type"`
		Param        json.RawMessage `json:"param"`
		Code         json.RawMessage `json:"code"`
		RequestID    string          `json:"request_id"`
		ErrorStageID *int            `json:"error_stage_id"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*e = Error{Message: raw.Message, Type: raw.Type, Param: scalar(raw.Param), Code: scalar(raw.Code),
		RequestID: raw.RequestID, ErrorStageID: raw.ErrorStageID}
	return nil
}

// Detail is FastAPI's error body `{"detail": …}`: a string, or a list of validation
// errors kept as compact JSON.
type Detail struct{ Message string }

// UnmarshalJSON implements json.Unmarshaler.
func (d *Detail) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &d.Message)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return err
	}
	d.Message = buf.String()
	return nil
}

// scalar renders a JSON scalar as text: strings unquoted, null as "".
func scalar(b json.RawMessage) string {
	switch {
	case len(b) == 0 || string(b) == "null":
		return ""
	case b[0] == '"':
		var v string
		_ = json.Unmarshal(b, &v) // b came from a valid document
		return v
	}
	return string(b)
}
