package omni

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/dop251/goja"
	"github.com/omnik-dev/omnik/js"
	"github.com/omnik-dev/omnik/modules/omni/client"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// DefaultPollInterval is the wait between a video job's status polls unless the script
// sets pollInterval: the reference's poll_interval_s default.
const DefaultPollInterval = 2 * time.Second

// videoFn is omni.videos.generate(body, params): an async job created (multipart, as
// vLLM-Omni's /v1/videos takes it), polled every params.pollInterval ms until it
// completes or fails, its content downloaded unless params.download is false. The call's
// timeout (params.timeout, else the client's) is the poll timeout.
func (m *Module) videoFn(vu *js.VU, get func() (*target, []*target)) func(goja.FunctionCall) goja.Value {
	return func(fc goja.FunctionCall) goja.Value {
		// A body that is not an object is refused by callFn's prepare.
		body, _ := exportBody(fc.Argument(0)).(map[string]any)
		job, err := videoJob(body, fc.Argument(1))
		if err != nil {
			panic(vu.Runtime().NewTypeError("omni.videos.generate(): " + err.Error()))
		}
		return m.callFn(vu, get, endpoint{name: "omni.videos.generate()", path: "/v1/videos", defaults: videoDefaults, encode: multipartBody,
			do: func(ctx context.Context, hc *http.Client, req client.Request) *record.Record {
				return client.Videos(ctx, hc, req, job)
			}})(fc)
	}
}

// videoDefaults asks for the server's stage metrics unless the script said otherwise, as
// chatDefaults does; the reference adds the field to the form with --print-stage.
func videoDefaults(body map[string]any, model string) {
	modelDefault(body, model)
	if _, ok := body["return_stage_metrics"]; !ok {
		body["return_stage_metrics"] = true
	}
}

// videoJob reads the video parameters of a call: pollInterval (ms) and download from its
// params, the clip asked for from its body. A pollInterval under 1 ms or not finite, or a
// timeout not finite, is refused: either would make the poll loop spin.
func videoJob(body map[string]any, paramsV goja.Value) (client.VideoJob, error) {
	job := client.VideoJob{PollInterval: DefaultPollInterval, Download: true,
		Seconds: bodyNumber(body["seconds"]), NumFrames: bodyNumber(body["num_frames"]), FPS: bodyNumber(body["fps"])}
	po, ok := paramsV.(*goja.Object)
	if !ok {
		return job, nil
	}
	if v := po.Get("pollInterval"); v != nil && !goja.IsUndefined(v) {
		ms := v.ToFloat()
		if !(ms >= 1 && ms <= maxPollMS) {
			return job, fmt.Errorf("pollInterval must be a finite number of ms >= 1, got %v", v)
		}
		job.PollInterval = time.Duration(ms * float64(time.Millisecond))
	}
	if v := po.Get("timeout"); v != nil && !goja.IsUndefined(v) {
		if ms := v.ToFloat(); !(ms >= 0 && ms <= maxPollMS) {
			return job, fmt.Errorf("timeout must be a finite number of ms >= 0, got %v", v)
		}
	}
	if v := po.Get("download"); v != nil && !goja.IsUndefined(v) {
		job.Download = v.ToBoolean()
	}
	return job, nil
}

// maxPollMS is the largest interval or timeout a Duration holds, in ms (292 years).
const maxPollMS = float64(math.MaxInt64 / int64(time.Millisecond))

// bodyNumber is a body field as a number: vLLM-Omni takes seconds as a string ("4").
func bodyNumber(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err == nil && f > 0 {
			return f
		}
	}
	return 0
}

// videoObject is res.video: the job and what it delivered. Times in ms from the call's
// start, duration in seconds like audio.duration.
func videoObject(r *record.Record) map[string]any {
	v := r.Video
	o := map[string]any{"id": v.JobID, "status": v.Status, "polls": v.Polls,
		"pollInterval": record.Millis(v.PollInterval), "bytes": v.Bytes, "duration": v.Seconds, "frames": v.Frames,
		"fps": v.FPS, "source": v.Source, "generation": v.GenerationMS}
	if w, ok := record.VideoPollWindow(r); ok {
		o["pollWindow"] = record.Millis(w)
	}
	if rtf, ok := record.VideoRTF(r); ok {
		o["rtf"] = rtf
	}
	if v.Content > 0 {
		o["content"] = record.Millis(v.Content)
	}
	return o
}
