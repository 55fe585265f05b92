package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// loadCustom reads a custom JSONL file: one JSON object a line with
//
//	prompt         string, required unless messages is given
//	output_tokens  positive integer; default Spec.CustomOutputLen, and replaced by
//	               Spec.CustomOutputLenOverride when that is set
//	images         a string or array of strings: file paths (relative to the dataset
//	               file), http(s) URLs or base64 data URLs
//	audio          the same, for audio (WAV durations are read from the header)
//	messages       an OpenAI chat messages array, sent instead of prompt
//
// Any other field is kept in Sample.Extra. Blank lines are skipped. Samples keep file
// order; a run's order comes from Dataset.Sample.
func loadCustom(spec Spec) ([]Sample, error) {
	if spec.Path == "" {
		return nil, fmt.Errorf("%w for the %s dataset", errNoPath, spec.Name)
	}
	data, err := os.ReadFile(spec.Path)
	if err != nil {
		return nil, &Error{File: spec.Path, Reason: err.Error(), Err: err}
	}
	return parseCustom(spec, data, newMediaLoader(spec.Path))
}

func parseCustom(spec Spec, data []byte, media *mediaLoader) ([]Sample, error) {
	samples := make([]Sample, 0, bytes.Count(data, []byte{'\n'})+1)
	for n := 1; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		s, err := customSample(spec, line, media)
		if err != nil {
			err.File, err.Line = spec.Path, n
			return nil, err
		}
		samples = append(samples, s)
	}
	if len(samples) == 0 {
		return nil, &Error{File: spec.Path, Reason: "no prompts (want one JSON object a line)"}
	}
	return samples, nil
}

// customSample decodes one line; its error lacks the file and line, which the caller knows.
func customSample(spec Spec, line []byte, media *mediaLoader) (Sample, *Error) {
	s := Sample{OutputTokens: spec.CustomOutputLen}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return s, &Error{Col: int(syn.Offset), Reason: syn.Error(), Err: err}
		}
		return s, &Error{Reason: fmt.Sprintf("the line is %s, want a JSON object", jsonType(bytes.TrimSpace(line))), Err: err}
	}
	// Known fields in a fixed order, so a line with several faults always reports the same.
	_, hasPrompt := fields["prompt"]
	var err error
	for _, key := range customFields {
		raw, ok := fields[key]
		if !ok {
			continue
		}
		delete(fields, key)
		switch key {
		case "prompt":
			if json.Unmarshal(raw, &s.Prompt) != nil {
				err = wantErr(key, raw, "a string")
			} else if s.Prompt == "" && fields["messages"] == nil {
				err = errors.New(`"prompt" is empty`)
			}
		case "output_tokens":
			if json.Unmarshal(raw, &s.OutputTokens) != nil || s.OutputTokens < 1 {
				err = wantErr(key, raw, "a positive integer")
			}
		case "images":
			s.Images, err = mediaRefs(key, raw, "image", media)
		case "audio":
			s.Audio, err = mediaRefs(key, raw, "audio", media)
		case "messages":
			var text string
			if text, err = messagesText(raw); err == nil {
				s.Messages, s.PromptLen = raw, EstimateTokens(text)
			}
		}
		if err != nil {
			return s, &Error{Reason: err.Error(), Err: errors.Unwrap(err)}
		}
	}
	switch {
	case s.Messages != nil:
	case !hasPrompt:
		return s, &Error{Reason: `"prompt" is missing`}
	default:
		s.PromptLen = EstimateTokens(s.Prompt)
	}
	if len(fields) > 0 {
		s.Extra, _ = json.Marshal(fields) // raw values from a valid line always marshal
	}
	if spec.CustomOutputLenOverride > 0 {
		s.OutputTokens = spec.CustomOutputLenOverride
	}
	return s, nil
}

// customFields are the fields a custom line may carry that omnik interprets.
var customFields = []string{"prompt", "output_tokens", "images", "audio", "messages"}

// mediaRefs resolves a string or an array of strings of image or audio references.
func mediaRefs(key string, raw json.RawMessage, kind string, media *mediaLoader) ([]*Media, error) {
	var refs []string
	if err := json.Unmarshal(raw, &refs); err != nil {
		var one string
		if json.Unmarshal(raw, &one) != nil {
			return nil, wantErr(key, raw, "a string or an array of strings")
		}
		refs = []string{one}
	}
	out := make([]*Media, 0, len(refs))
	for _, ref := range refs {
		m, err := media.load(ref, kind)
		if err != nil {
			return nil, fmt.Errorf("%q: %s %s: %w", key, kind, shorten(ref), err)
		}
		out = append(out, m)
	}
	return out, nil
}

// messagesText checks a chat messages array and returns its text, for the length estimate.
func messagesText(raw json.RawMessage) (string, error) {
	var msgs []struct {
		Role    *string         `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(raw, &msgs); err != nil || len(msgs) == 0 {
		return "", wantErr("messages", raw, "a non-empty array of {role, content} objects")
	}
	var text []byte
	for i, m := range msgs {
		if m.Role == nil {
			return "", fmt.Errorf(`"messages"[%d]: "role" is missing`, i)
		}
		var s string
		var parts []struct {
			Text string `json:"text"`
		}
		switch {
		case json.Unmarshal(m.Content, &s) == nil:
			text = append(append(text, s...), ' ')
		case json.Unmarshal(m.Content, &parts) == nil:
			for _, p := range parts {
				text = append(append(text, p.Text...), ' ')
			}
		case m.Content != nil:
			return "", fmt.Errorf(`"messages"[%d]: "content" is %s, want a string or an array of parts`, i, jsonType(m.Content))
		}
	}
	return string(text), nil
}

func wantErr(key string, raw json.RawMessage, want string) error {
	return fmt.Errorf("%q is %s, want %s", key, describeJSON(raw), want)
}

// describeJSON names a value for a message: small scalars as themselves, the rest by type.
func describeJSON(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) <= 20 && (len(raw) == 0 || raw[0] != '{' && raw[0] != '[') {
		return string(raw)
	}
	return jsonType(raw)
}

// jsonType names the JSON type of a value by its first byte.
func jsonType(raw []byte) string {
	if len(raw) == 0 {
		return "empty"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// shorten keeps a reference readable in a message (data URLs run to megabytes).
func shorten(ref string) string {
	if len(ref) > 64 {
		return fmt.Sprintf("%q…", ref[:48])
	}
	return fmt.Sprintf("%q", ref)
}
