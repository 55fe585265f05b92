package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
)

// ShareGPT pair filter of vLLM's is_valid_sequence, in estimated tokens: a pair is skipped
// when its prompt or reply is under 4 tokens (the reply check is off when
// --sharegpt-output-len is set), its prompt over 1024, or both together over 2048.
const (
	sharegptMinLen       = 4
	sharegptMaxPromptLen = 1024
	sharegptMaxTotalLen  = 2048
)

type sharegptTurn struct {
	From  string `json:"from"`
	Value string `json:"value"`
}

type sharegptEntry struct {
	Conversations []sharegptTurn `json:"conversations"`
	Image         string         `json:"image"`
}

// loadShareGPT reads a ShareGPT file: a JSON array of {id, conversations: [{from, value}]}.
// Each entry gives one sample: the first human turn is the prompt and the turn after it
// (the gpt reply) sets the output length. Entries without such a pair, or outside the
// length filter, are skipped as vLLM skips them; a file with no usable entry is an error.
// vLLM takes turns 0 and 1 whoever speaks them; omnik looks for the first human turn, so
// conversations opening with a gpt greeting still count. Samples keep file order; a run's
// order comes from Dataset.Sample.
func loadShareGPT(spec Spec) ([]Sample, error) {
	if spec.Path == "" {
		return nil, fmt.Errorf("%w for the %s dataset", errNoPath, spec.Name)
	}
	data, err := os.ReadFile(spec.Path)
	if err != nil {
		return nil, &Error{File: spec.Path, Reason: err.Error(), Err: err}
	}
	return parseShareGPT(spec, data, newMediaLoader(spec.Path))
}

func parseShareGPT(spec Spec, data []byte, media *mediaLoader) ([]Sample, error) {
	fail := func(off int64, reason string, err error) error {
		line, col := position(data, off)
		return &Error{File: spec.Path, Line: line, Col: col, Reason: reason, Err: err}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, fail(leadingSpace(data, 0), "want a JSON array of conversations", err)
	}
	var samples []Sample
	for i := 0; dec.More(); i++ {
		// Decode's error offsets count from just past the previous ',' (or the '[').
		start := dec.InputOffset()
		if i > 0 {
			start = leadingSpace(data, start) + 1
		}
		var e sharegptEntry
		if err := dec.Decode(&e); err != nil {
			return nil, shareGPTError(fail, data, start, i, err)
		}
		at := leadingSpace(data, start)
		s, ok := sharegptSample(spec, e)
		if !ok {
			continue
		}
		if e.Image != "" {
			m, err := media.load(e.Image, "image")
			if err != nil {
				return nil, fail(at, fmt.Sprintf("entry %d: image %q: %v", i, e.Image, err), err)
			}
			s.Images = []*Media{m}
		}
		samples = append(samples, s)
	}
	if _, err := dec.Token(); err != nil {
		return nil, shareGPTError(fail, data, dec.InputOffset(), -1, err)
	}
	if rest := leadingSpace(data, dec.InputOffset()); rest < int64(len(data)) {
		return nil, fail(rest, "unexpected data after the array", nil)
	}
	if len(samples) == 0 {
		return nil, &Error{File: spec.Path, Reason: "no conversation passes the length filter (prompt 4–1024 tokens, reply ≥ 4, together ≤ 2048)"}
	}
	return samples, nil
}

// shareGPTError places a decoding error. Type errors count from the value the decoder
// started at; a syntax error's offset in a stream is not reliable, so the whole file is
// checked again to place it (an error path only).
func shareGPTError(fail func(int64, string, error) error, data []byte, start int64, entry int, err error) error {
	where := ""
	if entry >= 0 {
		where = fmt.Sprintf("entry %d: ", entry)
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		field := typ.Field
		if field == "" {
			field = "entry"
		}
		return fail(start+typ.Offset-1, fmt.Sprintf("%s%q is %s, want %s", where, field, article(typ.Value), jsonKind(typ.Type.String())), err)
	}
	var syn *json.SyntaxError
	if errors.As(json.Unmarshal(data, new(json.RawMessage)), &syn) {
		if syn.Offset >= int64(len(data)) {
			return fail(int64(len(data)), where+"unexpected end of file", syn)
		}
		return fail(syn.Offset-1, where+syn.Error(), syn)
	}
	return fail(start, where+err.Error(), err)
}

// article puts "a" or "an" before a JSON type name ("number", "array" …).
func article(kind string) string {
	if strings.ContainsAny(kind[:1], "aeiou") {
		return "an " + kind
	}
	return "a " + kind
}

// jsonKind names a Go type the way a dataset author knows it.
func jsonKind(goType string) string {
	switch goType {
	case "string":
		return "a string"
	case "[]dataset.sharegptTurn":
		return "an array of turns"
	case "dataset.sharegptEntry", "dataset.sharegptTurn":
		return "an object"
	}
	return goType
}

// sharegptSample picks the prompt and reply of an entry and applies vLLM's filter.
func sharegptSample(spec Spec, e sharegptEntry) (Sample, bool) {
	turns := e.Conversations
	for i := 0; i+1 < len(turns); i++ {
		if turns[i].From != "human" || turns[i+1].From == "human" {
			continue
		}
		promptLen, outLen := EstimateTokens(turns[i].Value), EstimateTokens(turns[i+1].Value)
		if spec.SharegptOutputLen > 0 {
			outLen = spec.SharegptOutputLen
		} else if outLen < sharegptMinLen {
			return Sample{}, false
		}
		if promptLen < sharegptMinLen || promptLen > sharegptMaxPromptLen || promptLen+outLen > sharegptMaxTotalLen {
			return Sample{}, false
		}
		return Sample{Prompt: turns[i].Value, PromptLen: promptLen, OutputTokens: outLen}, true
	}
	return Sample{}, false
}

// leadingSpace returns the offset of the first non-space byte at or after off.
func leadingSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\n', '\r':
			off++
		default:
			return off
		}
	}
	return off
}
