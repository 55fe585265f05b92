package omni

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/dop251/goja"
	"github.com/omnik-dev/omnik/js"
	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/modules/omni/client"
	"github.com/omnik-dev/omnik/modules/omni/record"
	"github.com/omnik-dev/omnik/modules/omni/wav"
)

const realtimeName = "omni.realtime()"

// realtimeSession is a validated omni.realtime() config.
type realtimeSession struct {
	lane, path     string
	duplex, vad    bool
	responseCreate bool
	speed          float64
	chunk          time.Duration
	session        map[string]any
	turns          []client.RealtimeTurn
}

// realtimeFn is omni.realtime(config, params): one realtime session of several turns.
// The whole session runs in Go; its promise resolves with every turn's result.
func (m *Module) realtimeFn(vu *js.VU, get func() (*target, []*target)) func(goja.FunctionCall) goja.Value {
	return func(fc goja.FunctionCall) goja.Value {
		vu.RequireVUContext(realtimeName)
		cl, p := m.prepare(vu, realtimeName, fc.Argument(0), fc.Argument(1))
		rs, err := parseRealtime(cl.body)
		if err != nil {
			panic(vu.Runtime().NewTypeError(realtimeName + ": " + err.Error()))
		}
		c, mirrors := get()
		return m.start(vu, c, mirrors, p, cl, func(ctx context.Context, c *target, cl call) []*record.Record {
			return c.realtime(ctx, cl, rs)
		}, sessionResult)
	}
}

// realtime runs one session through c.
func (c *target) realtime(ctx context.Context, cl call, rs *realtimeSession) []*record.Record {
	model, _ := cl.body["model"].(string)
	if model == "" {
		model = c.model(ctx)
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout(cl))
	defer cancel()
	u := wsURL(c.cfg.BaseURL) + rs.path
	if rs.duplex && rs.path == "/v1/realtime" {
		u += "?duplex=1"
	}
	return client.Realtime(ctx, c.ws, client.RealtimeRequest{
		URL: u, Header: c.cfg.header(cl.headers), Lane: rs.lane, Duplex: rs.duplex, Model: model,
		Session: base64Binary(rs.session, "").(map[string]any), Turns: rs.turns,
		Output: wav.PCM16(cl.sampleRate, 1), Chunk: rs.chunk, Speed: rs.speed, VAD: rs.vad,
		ResponseCreate: rs.responseCreate, KeepAudio: cl.keepAudio, IntendedStart: cl.intendedStart,
		StallTimeout: c.cfg.StallTimeout.D(), OnEvent: cl.onEvent, Limits: c.cfg.limits(),
	})
}

// parseRealtime reads the config: protocol, duplex, path, session, vad, responseCreate,
// speed, chunkMs, inputSampleRate and turns [{audio, silenceMs, bargeInMs}].
func parseRealtime(body map[string]any) (*realtimeSession, error) {
	rs := &realtimeSession{lane: record.RealtimeOmni, path: "/v1/realtime", speed: 1, chunk: 100 * time.Millisecond, session: map[string]any{}}
	if v, ok := body["protocol"].(string); ok {
		rs.lane = v
	}
	rs.duplex, _ = body["duplex"].(bool)
	if v, ok := body["path"].(string); ok {
		rs.path = v
	}
	if rs.path == "/v1/duplex" {
		rs.duplex = true
	}
	if rs.duplex {
		if _, set := body["protocol"]; !set {
			rs.lane = record.RealtimeOpenAI
		}
	}
	switch rs.lane {
	case record.RealtimeOmni, record.RealtimeOpenAI, record.RealtimeASR:
	default:
		return nil, fmt.Errorf("protocol %q: want %q, %q or %q", rs.lane, record.RealtimeOmni, record.RealtimeOpenAI, record.RealtimeASR)
	}
	if u, err := url.Parse(rs.path); err != nil || u.Path != rs.path || rs.path == "" || rs.path[0] != '/' {
		return nil, fmt.Errorf("path %q: want a path such as /v1/realtime", rs.path)
	}
	if s, ok := body["session"].(map[string]any); ok {
		rs.session = s
	}
	rs.vad, _ = body["vad"].(bool)
	rs.responseCreate, _ = body["responseCreate"].(bool)
	if v, ok := number(body["speed"]); ok {
		if !(v >= 0) {
			return nil, fmt.Errorf("speed must be >= 0 (1 is real time, 0 as fast as possible), got %v", v)
		}
		rs.speed = v
	}
	if v, ok := number(body["chunkMs"]); ok {
		d, err := millis("chunkMs", v, minChunkMs)
		if err != nil {
			return nil, err
		}
		rs.chunk = d
	}
	rate := 16000
	if v, ok := number(body["inputSampleRate"]); ok {
		if !(v >= 1) {
			return nil, fmt.Errorf("inputSampleRate must be >= 1, got %v", v)
		}
		rate = int(v)
	}
	list, _ := body["turns"].([]any)
	if len(list) == 0 {
		return nil, errors.New("turns must be a non-empty array of {audio, silenceMs, bargeInMs}")
	}
	for i, e := range list {
		t, err := parseTurn(e, rate, i > 0)
		if err != nil {
			return nil, fmt.Errorf("turns[%d]: %w", i, err)
		}
		rs.turns = append(rs.turns, t)
	}
	return rs, nil
}

// parseTurn reads one turn: its audio (a PCM16 WAV, or raw PCM16 at rate) and timing.
func parseTurn(v any, rate int, later bool) (client.RealtimeTurn, error) {
	o, ok := v.(map[string]any)
	if !ok {
		return client.RealtimeTurn{}, fmt.Errorf("is %T, want an object", v)
	}
	audio, ok := o["audio"].(binary)
	if !ok || len(audio) == 0 {
		return client.RealtimeTurn{}, errors.New("audio must be binary PCM16 or WAV (open(path, 'b') or a typed array)")
	}
	t := client.RealtimeTurn{Audio: audio, Format: wav.PCM16(rate, 1)}
	if info, err := wav.Parse(audio); err == nil {
		if info.Encoding != wav.PCM || info.BitsPerSample != 16 {
			return t, fmt.Errorf("audio is a WAV of %d-bit encoding %d; realtime sends PCM16", info.BitsPerSample, info.Encoding)
		}
		t.Format, t.Audio = info.Format, audio[info.DataOffset:int64(info.DataOffset)+info.DataBytes-info.Extra]
	} else if !errors.Is(err, wav.ErrNotWAV) {
		return t, fmt.Errorf("audio: %w", err)
	}
	fs := t.Format.FrameSize()
	if t.Format.SampleRate <= 0 || fs <= 0 || len(t.Audio) < fs {
		return t, errors.New("audio holds no whole sample at a known rate")
	}
	t.Audio = t.Audio[:len(t.Audio)/fs*fs] // a trailing partial sample is not speech
	if v, ok := number(o["silenceMs"]); ok {
		d, err := millis("silenceMs", v, 0)
		if err != nil {
			return t, err
		}
		t.Silence = d
	}
	if v, ok := number(o["bargeInMs"]); ok {
		if !later {
			return t, errors.New("bargeInMs is for a turn after the first")
		}
		d, err := millis("bargeInMs", v, 0)
		if err != nil {
			return t, err
		}
		t.BargeIn, t.BargeAfter = true, d
	}
	return t, nil
}

// minChunkMs floors chunkMs: a smaller append is a few samples, a flood of events.
const minChunkMs = 10

// maxMillis bounds a script's durations at a day: finite, and far from overflowing
// a time.Duration.
const maxMillis = 24 * 3600 * 1000

// millis reads name's milliseconds v as a Duration, refusing NaN, infinities and what
// lies outside [lo, maxMillis].
func millis(name string, v, lo float64) (time.Duration, error) {
	if !(v >= lo && v <= maxMillis) {
		return 0, fmt.Errorf("%s must be a number of ms from %v to %v, got %v", name, lo, maxMillis, v)
	}
	return time.Duration(v * float64(time.Millisecond)), nil
}

// number reads a JS number as exported (an integer or a float).
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// sessionResult is what omni.realtime() resolves to: the session's outcome and one
// result per turn that started, each a request result with its place in the session.
func sessionResult(rt *goja.Runtime, recs []*record.Record, p params) map[string]any {
	last := recs[len(recs)-1]
	turns := make([]any, len(recs))
	bargeIns := 0
	for i, r := range recs {
		o := resultObject(rt, r, p)
		o["turn"], o["bargeIn"], o["outcome"], o["speech"] = r.Realtime.Index, r.Realtime.BargeIn, r.Realtime.Outcome, r.Realtime.Speech
		if r.Realtime.BargeIn {
			bargeIns++
		}
		turns[i] = o
	}
	res := map[string]any{"ok": last.OK(), "error": nil, "session": last.Realtime.Session, "lane": last.Realtime.Lane,
		"turns": turns, "completed": last.Realtime.Completed, "planned": last.Realtime.Planned, "bargeIns": bargeIns}
	if last.Err != nil {
		res["error"] = map[string]any{"kind": last.Err.Kind, "message": last.Err.Message, "turn": last.Realtime.Index}
	}
	return res
}

// realtimeMetrics are the session-level metrics of realtime records (docs/metrics.md):
// a session counts once, on its last record.
type realtimeMetrics struct {
	sessions, failed, turns, bargeIns *metrics.Metric
}

func registerRealtime(counter func(string) *metrics.Metric, failed, turns *metrics.Metric) realtimeMetrics {
	return realtimeMetrics{sessions: counter("realtime_sessions"), failed: failed, turns: turns, bargeIns: counter("realtime_barge_ins")}
}

// samples adds a turn's barge-in and, on a session's last record, the session's outcome:
// realtime_sessions_failed is 1 with the failure's error tag, realtime_turns its
// completed turns.
func (rm realtimeMetrics) samples(r *record.Record, tags *metrics.TagSet, add func(*metrics.Metric, *metrics.TagSet, float64)) {
	t := r.Realtime
	if t.BargeIn {
		add(rm.bargeIns, tags, 1)
	}
	if !t.Last {
		return
	}
	add(rm.sessions, tags, 1)
	if r.OK() {
		add(rm.failed, tags, 0)
	} else {
		add(rm.failed, tags.With("error", r.Err.Kind), 1)
	}
	add(rm.turns, tags, float64(t.Completed))
}
