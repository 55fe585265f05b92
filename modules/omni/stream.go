package omni

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/dop251/goja"
	"github.com/omnik-dev/omnik/js"
	"github.com/omnik-dev/omnik/modules/omni/chunk"
	"github.com/omnik-dev/omnik/modules/omni/client"
	"github.com/omnik-dev/omnik/modules/omni/record"
	"github.com/omnik-dev/omnik/modules/omni/wav"
)

const (
	streamName = "omni.audio.stream()"
	streamPath = "/v1/audio/speech/stream"
)

// streamFn is omni.audio.stream(config, params): one websocket TTS session. config is the
// session.config plus `input`, the text as a string or an array of pieces; params.pace
// feeds the pieces at an LLM's speed.
func (m *Module) streamFn(vu *js.VU, get func() (*target, []*target)) func(goja.FunctionCall) goja.Value {
	return func(fc goja.FunctionCall) goja.Value {
		vu.RequireVUContext(streamName)
		cl, p := m.prepare(vu, streamName, fc.Argument(0), fc.Argument(1))
		text, err := textPieces(cl.body["input"])
		if err == nil {
			delete(cl.body, "input")
		}
		var pace time.Duration
		if err == nil {
			pace, err = parsePace(fc.Argument(1))
		}
		if err != nil {
			panic(vu.Runtime().NewTypeError(streamName + ": " + err.Error()))
		}
		// Paced text imitates tokens: a string is sent a word at a time.
		if pace > 0 && len(text) == 1 {
			text = words(text[0])
		}
		c, mirrors := get()
		return m.start(vu, c, mirrors, p, cl, func(ctx context.Context, c *target, cl call) []*record.Record {
			return []*record.Record{c.stream(ctx, cl, text, pace)}
		}, oneResult)
	}
}

// stream runs one session through c and returns its record; failures are in the record.
func (c *target) stream(ctx context.Context, cl call, text []string, pace time.Duration) *record.Record {
	modelDefault(cl.body, c.model(ctx))
	ctx, cancel := context.WithTimeout(ctx, c.timeout(cl))
	defer cancel()
	return client.AudioStream(ctx, c.ws, client.StreamRequest{
		URL: wsURL(c.cfg.BaseURL) + streamPath, Header: c.cfg.header(cl.headers),
		Config: base64Binary(cl.body, "").(map[string]any), Text: text, Pace: pace,
		Audio:         chunk.AudioSpec{Raw: wav.PCM16(cl.sampleRate, 1), Keep: cl.keepAudio},
		IntendedStart: cl.intendedStart, StallTimeout: c.cfg.StallTimeout.D(), OnEvent: cl.onEvent,
		Limits: c.cfg.limits(),
	})
}

// wsURL turns http(s)://host into ws(s)://host.
func wsURL(base string) string {
	if rest, ok := strings.CutPrefix(base, "http"); ok {
		return "ws" + rest
	}
	return base
}

// textPieces reads config.input: a string (one piece) or an array of strings.
func textPieces(v any) ([]string, error) {
	switch x := v.(type) {
	case string:
		return []string{x}, nil
	case []any:
		out := make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("config.input[%d] is %T, want a string", i, e)
			}
			out[i] = s
		}
		if len(out) > 0 {
			return out, nil
		}
	}
	return nil, fmt.Errorf("config.input must be a string or a non-empty array of strings, got %T", v)
}

// parsePace reads params.pace: {tokensPerSecond} or {intervalMs}, the pause before each
// piece after the first.
func parsePace(paramsV goja.Value) (time.Duration, error) {
	po, ok := paramsV.(*goja.Object)
	if !ok {
		return 0, nil
	}
	pace, ok := po.Get("pace").(*goja.Object)
	if !ok {
		return 0, nil
	}
	if v := pace.Get("tokensPerSecond"); v != nil && !goja.IsUndefined(v) {
		tps := v.ToFloat()
		if !(tps > 0) {
			return 0, fmt.Errorf("pace.tokensPerSecond must be > 0, got %v", v)
		}
		return time.Duration(float64(time.Second) / tps), nil
	}
	if v := pace.Get("intervalMs"); v != nil && !goja.IsUndefined(v) {
		ms := v.ToFloat()
		if !(ms >= 0) {
			return 0, fmt.Errorf("pace.intervalMs must be >= 0, got %v", v)
		}
		return time.Duration(ms * float64(time.Millisecond)), nil
	}
	return 0, fmt.Errorf("pace wants tokensPerSecond or intervalMs")
}

// words splits s into pieces that each start at a word and keep the space before the
// next, so the pieces concatenate back to s.
func words(s string) []string {
	var out []string
	start, inWord, seen := 0, false, false
	for i, r := range s {
		space := unicode.IsSpace(r)
		if !space && !inWord && seen {
			out = append(out, s[start:i])
			start = i
		}
		seen = seen || !space
		inWord = !space
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
