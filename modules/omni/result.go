package omni

import (
	"encoding/base64"
	"net/http"
	"slices"
	"strings"

	"github.com/dop251/goja"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// resultObject is what a call resolves to in JavaScript. Times are in milliseconds.
func resultObject(rt *goja.Runtime, r *record.Record, p params) map[string]any {
	timings := map[string]any{"e2el": record.Millis(record.E2EL(r))}
	opt := func(key string, v float64, ok bool) {
		if ok {
			timings[key] = v
		}
	}
	ttfc, okC := record.TTFC(r)
	opt("ttfc", record.Millis(ttfc), okC)
	ttft, okT := record.TTFT(r)
	opt("ttft", record.Millis(ttft), okT)
	tpot, okP := record.TPOT(r)
	opt("tpot", record.Millis(tpot), okP)
	ttfp, okA := record.AudioTTFP(r)
	opt("audioTtfp", record.Millis(ttfp), okA)
	rtf, okR := record.AudioRTF(r)
	opt("audioRtf", rtf, okR)
	itl := record.ITL(r)
	itlMS := make([]any, len(itl))
	for i, v := range itl {
		itlMS[i] = record.Millis(v)
	}
	timings["itl"] = itlMS

	res := map[string]any{
		"ok": r.OK(), "status": r.Status, "error": nil, "requestId": r.RequestID,
		"text":    r.Text,
		"usage":   map[string]any{"promptTokens": r.Usage.Prompt, "completionTokens": r.Usage.Completion, "totalTokens": r.Usage.Total, "estimated": r.Usage.Estimated},
		"timings": timings,
		"audio": map[string]any{"duration": r.Audio.Seconds, "frames": r.Audio.Frames, "sampleRate": r.Audio.SampleRate,
			"format": r.Audio.Format, "chunks": len(r.AudioChunks)},
		"images":         map[string]any{"count": record.ImageCount(r), "width": r.Images.Width, "height": r.Images.Height, "pixels": r.Images.Pixels},
		"stages":         stagesObject(r),
		"stageDurations": durationsObject(r),
		"peakMemoryMb":   r.Images.PeakMemoryMB,
		"streamEdges":    edgesObject(r),
	}
	if r.Err != nil {
		res["error"] = map[string]any{"kind": r.Err.Kind, "message": r.Err.Message}
	}
	anomalies := make([]any, len(r.Anomalies))
	for i, a := range r.Anomalies {
		anomalies[i] = map[string]any{"kind": a.Kind, "message": a.Message, "count": a.Count}
	}
	res["anomalies"] = anomalies
	if r.Endpoint == record.EndpointAudioStream {
		res["utterances"] = utterancesObject(r)
	}
	if r.Endpoint == record.EndpointVideos {
		res["video"] = videoObject(r)
	}
	if p.keepImages && len(r.Images.Data) > 0 {
		data := make([]any, len(r.Images.Data))
		for i, b := range r.Images.Data {
			data[i] = imageBytes(rt, b)
		}
		res["images"].(map[string]any)["data"] = data
	}
	if p.keepAudio && r.Audio.Samples != nil {
		res["audio"].(map[string]any)["data"] = rt.NewArrayBuffer(r.Audio.Samples)
	}
	return res
}

// utterancesObject lists a websocket session's sentences: times in ms from the session
// start, ttfp from when the sentence's text was all sent (record.Utterance.TTFP), duration
// in seconds like audio.duration.
func utterancesObject(r *record.Record) []any {
	out := make([]any, len(r.Utterances))
	for i, u := range r.Utterances {
		o := map[string]any{"index": u.Index, "text": u.Text, "start": record.Millis(u.Start),
			"duration": u.Seconds, "frames": u.Frames}
		if v, ok := u.TTFP(); ok {
			o["ttfp"], o["firstAudio"] = record.Millis(v), record.Millis(u.FirstAudio)
		}
		if v, ok := u.RTF(); ok {
			o["rtf"] = v
		}
		if u.Done > 0 {
			o["done"] = record.Millis(u.Done)
		}
		out[i] = o
	}
	return out
}

// durationsObject is stage_durations as the server sent it, an empty object for none.
func durationsObject(r *record.Record) map[string]any {
	out := make(map[string]any, len(r.Images.StageDurations))
	for _, d := range r.Images.StageDurations {
		out[d.Key] = d.Value
	}
	return out
}

// edgesObject is the stream-edge snapshot by edge: each event's elapsed ms by name (the
// key without _ms), and handoff when record.EdgeHandoffMS derives one.
func edgesObject(r *record.Record) map[string]any {
	out := make(map[string]any, len(r.Edges))
	for key, e := range r.Edges {
		o := make(map[string]any, len(e.Values)+1)
		for name, v := range e.Values {
			o[strings.TrimSuffix(name, "_ms")] = v
		}
		if v, ok := record.EdgeHandoffMS(e); ok {
			o["handoff"] = v
		}
		out[key] = o
	}
	return out
}

func stagesObject(r *record.Record) map[string]any {
	out := make(map[string]any, len(r.Stages))
	for _, id := range r.StageIDs() {
		st := r.Stages[id]
		vals := make(map[string]any, len(st.Values)+len(st.Lists)+2)
		for k, v := range st.Values {
			vals[k] = v
		}
		// Copies: the script may change them, the record is still being written.
		for k, v := range st.Lists {
			vals[k] = slices.Clone(v)
		}
		vals["stage_name"] = st.Name
		vals["output_unit_type"] = st.OutputUnitType
		out[st.DisplayName()] = vals
	}
	return out
}

// binary is script data from open(path, 'b') or a typed array: multipart sends it as a
// file, JSON as base64 encoded in Go.
type binary []byte

// exportBody turns the script's body into plain Go values, keeping binary data as binary.
func exportBody(v goja.Value) any { return markBinary(v.Export()) }

// markBinary copies v with binary data marked: the script's objects may be Go values
// shared with other calls (a module's data), so nothing is changed in place.
func markBinary(v any) any {
	switch x := v.(type) {
	case goja.ArrayBuffer:
		return binary(x.Bytes())
	case []byte:
		return binary(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = markBinary(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = markBinary(e)
		}
		return out
	}
	return v
}

// base64Binary copies v with binary values encoded for a JSON body: a data: URL under
// "url" keys (image parts), plain base64 elsewhere (input_audio.data).
func base64Binary(v any, key string) any {
	switch x := v.(type) {
	case binary:
		enc := base64.StdEncoding.EncodeToString(x)
		if key == "url" {
			return "data:" + http.DetectContentType(x) + ";base64," + enc
		}
		return enc
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = base64Binary(e, k)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = base64Binary(e, key)
		}
		return out
	}
	return v
}

// imageBytes decodes a kept image (base64 or a data URL) into an ArrayBuffer; a remote
// URL stays a string.
func imageBytes(rt *goja.Runtime, kept []byte) any {
	raw, err := base64.StdEncoding.DecodeString(base64Part(string(kept)))
	if err != nil {
		return string(kept)
	}
	return rt.NewArrayBuffer(raw)
}
