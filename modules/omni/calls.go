package omni

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"sort"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
	"github.com/omnik-dev/omnik/modules/omni/client"
	"github.com/omnik-dev/omnik/modules/omni/record"
	"github.com/omnik-dev/omnik/modules/omni/wav"
)

// call is one request as the JS binding hands it to Go.
type call struct {
	body          map[string]any
	headers       map[string]string
	timeout       time.Duration
	intendedStart time.Time
	keepAudio     bool
	keepImages    bool
	sampleRate    int
	// onEvent, when set, sees each event's raw data and arrival time on the reader goroutine.
	onEvent func(at time.Time, data []byte)
}

// mirrored is the call as a mirror sends it: the same body, its own copy (each target
// completes it with its defaults and model), nothing kept and no events for the script,
// which sees the default client's.
func (cl call) mirrored() call {
	cl.body = maps.Clone(cl.body)
	cl.onEvent, cl.keepAudio, cl.keepImages = nil, false, false
	return cl
}

// endpoint is one omni call: how to complete the body and how to send and read it.
type endpoint struct {
	name     string // the JS function, for error messages
	path     string
	defaults func(body map[string]any, model string)
	do       func(ctx context.Context, hc *http.Client, req client.Request) *record.Record
	// encode turns the body into the request payload; JSON unless set (multipart edits).
	encode func(body map[string]any) ([]byte, string, error)
}

var (
	chatEndpoint   = endpoint{name: "omni.chat()", path: "/v1/chat/completions", defaults: chatDefaults, do: client.Chat}
	speechEndpoint = endpoint{name: "omni.audio.speech()", path: "/v1/audio/speech", defaults: speechDefaults, do: client.Speech}
	imagesEndpoint = endpoint{name: "omni.images.generate()", path: "/v1/images/generations", defaults: modelDefault,
		do: func(ctx context.Context, hc *http.Client, req client.Request) *record.Record {
			return client.Images(ctx, hc, req, record.EndpointImages)
		}}
	editEndpoint = endpoint{name: "omni.images.edit()", path: "/v1/images/edits", defaults: modelDefault, encode: multipartBody,
		do: func(ctx context.Context, hc *http.Client, req client.Request) *record.Record {
			return client.Images(ctx, hc, req, record.EndpointImageEdit)
		}}
)

func modelDefault(body map[string]any, model string) {
	if _, ok := body["model"]; !ok && model != "" {
		body["model"] = model
	}
}

// chatDefaults fills what omnik's measurements need unless the script set it: streaming,
// usage on every chunk (token-weighted ITL) and the server's stage metrics.
func chatDefaults(body map[string]any, model string) {
	modelDefault(body, model)
	if _, ok := body["stream"]; !ok {
		body["stream"] = true
	}
	if _, ok := body["stream_options"]; !ok && body["stream"] == true {
		body["stream_options"] = map[string]any{"include_usage": true, "continuous_usage_stats": true}
	}
	if _, ok := body["return_stage_metrics"]; !ok {
		body["return_stage_metrics"] = true
	}
}

// speechDefaults always sends stream_format: older servers read stream:true as raw. A call
// that asks for stage metrics gets SSE, as the reference switches (vllm-project/vllm-omni
// #4694): raw PCM has nowhere to carry them.
func speechDefaults(body map[string]any, model string) {
	modelDefault(body, model)
	if _, ok := body["stream_format"]; !ok {
		body["stream_format"] = "audio"
		if want, _ := body["return_stage_metrics"].(bool); want {
			body["stream_format"] = "sse"
		}
	}
	if _, ok := body["response_format"]; !ok {
		body["response_format"] = "pcm"
	}
}

// run sends one call through c and returns its record; failures are in the record.
func (c *target) run(ctx context.Context, ep endpoint, cl call) *record.Record {
	ep.defaults(cl.body, c.model(ctx))
	encode := ep.encode
	if encode == nil {
		encode = jsonBody
	}
	payload, contentType, err := encode(cl.body)
	if err != nil {
		b := record.NewBuilder(ep.path, time.Now())
		b.Fail(record.KindMalformed, fmt.Sprintf("%s: request body: %v", ep.name, err))
		return b.Finish(time.Now())
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout(cl))
	defer cancel()
	format, _ := cl.body["response_format"].(string)
	if ep.path != speechEndpoint.path {
		format = ""
	}
	return ep.do(ctx, c.http, client.Request{
		URL: c.cfg.BaseURL + ep.path, Body: payload, ContentType: contentType,
		Header: c.cfg.header(cl.headers), IntendedStart: cl.intendedStart,
		StallTimeout: c.cfg.StallTimeout.D(),
		Audio:        chunk.AudioSpec{Format: format, Raw: wav.PCM16(cl.sampleRate, 1), Keep: cl.keepAudio},
		KeepImages:   cl.keepImages,
		OnEvent:      cl.onEvent,
		Limits:       c.cfg.limits(),
	})
}

// timeout is the call's own timeout, else the client's.
func (c *target) timeout(cl call) time.Duration {
	if cl.timeout > 0 {
		return cl.timeout
	}
	return c.cfg.Timeout.D()
}

func jsonBody(body map[string]any) ([]byte, string, error) {
	b, err := appendBody(make([]byte, 0, 256), body, "")
	return b, "application/json", err
}

// multipartBody encodes an image edit: binary `image` (one or several) and `mask_image`
// as files, every other value (URLs included) as a form field.
func multipartBody(body map[string]any) ([]byte, string, error) {
	keys := make([]string, 0, len(body))
	for k := range body {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var fields [][2]string
	var files []client.FormFile
	var add func(key string, v any) error
	add = func(key string, v any) error {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				if err := add(key, e); err != nil {
					return err
				}
			}
		case binary:
			files = append(files, client.FormFile{Field: key, Name: key + extension(x), ContentType: http.DetectContentType(x), Data: x})
		case string:
			fields = append(fields, [2]string{key, x})
		case nil:
		default:
			b, err := json.Marshal(v)
			if err != nil {
				return fmt.Errorf("field %q: %w", key, err)
			}
			fields = append(fields, [2]string{key, string(b)})
		}
		return nil
	}
	for _, k := range keys {
		if err := add(k, body[k]); err != nil {
			return nil, "", err
		}
	}
	return client.Multipart(fields, files)
}

func extension(b []byte) string {
	switch http.DetectContentType(b) {
	case "image/png":
		return ".png"
	case "image/jpeg":
		return ".jpg"
	case "image/webp":
		return ".webp"
	}
	return ".bin"
}
