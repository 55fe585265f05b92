package client

import (
	"context"
	"encoding/base64"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

func images(endpoint string) func(context.Context, *http.Client, Request) *record.Record {
	return func(ctx context.Context, hc *http.Client, req Request) *record.Record {
		return Images(ctx, hc, req, endpoint)
	}
}

func TestImagesGeneration(t *testing.T) {
	t.Parallel()
	body := `{"created":1760000000,"data":[{"b64_json":"` + pngB64(64, 32) + `","url":null,"revised_prompt":null},{"b64_json":"` + pngB64(16, 16) + `"}],"output_format":"png","size":"64x32","stage_durations":{"dit_gen_ms":812.5},"metrics":{"stage_metrics":{"0":{"stage_id":0,"stage_name":"dit","output_unit_type":"image","final_output_type":"image","stage_gen_time_ms":800,"output_unit_count":2,"denoise_step_latency_ms":16}}}}`
	r := do(t, images(record.EndpointImages), replay{header: map[string]string{"Content-Type": "application/json"}, pieces: [][]byte{[]byte(body[:100]), []byte(body[100:])}}, Request{KeepImages: true})
	if !r.OK() || r.Images.Count != 2 || r.Images.Width != 64 || r.Images.Pixels != 64*32+16*16 || len(r.Images.Data) != 2 {
		t.Fatalf("%+v %+v", r.Err, r.Images)
	}
	if g, _ := record.ImageGenerationMS(r); g != 800 {
		t.Fatalf("generation %v", g)
	}
	if d, _ := record.DenoiseStepMS(r); d != 16 || !reflect.DeepEqual(r.Images.StageDurations, chunk.Durations{{Key: "dit_gen_ms", Value: 812.5}}) {
		t.Fatalf("denoise %v", d)
	}
}

func TestImageEditStreamEveryByteBoundary(t *testing.T) {
	t.Parallel()
	stream := sseStream(
		`{"object":"image.edit.chunk","type":"ar_delta","delta":"<think>","index":0,"created":1,"model":"m","metrics":null}`,
		`{"object":"image.edit.chunk","type":"ar_delta","delta":"ok","index":0,"created":1,"model":"m","metrics":null}`,
		`{"object":"image.edit.chunk","type":"image","data":[{"b64_json":"`+pngB64(8, 4)+`"}],"output_format":"png","size":"8x4"}`,
		"[DONE]")
	everySplit(t, images(record.EndpointImageEdit), replay{header: sseHeader, pieces: [][]byte{stream}}, Request{}, func(split int, r *record.Record) {
		if !r.OK() || r.Text != "<think>ok" || len(record.ITL(r)) != 1 || r.Images.Count != 1 || r.Images.Pixels != 32 || r.Images.Data != nil {
			t.Fatalf("split %d: %+v %q %+v", split, r.Err, r.Text, r.Images)
		}
	})
	errStream := sseStream(`{"object":"error","created":1,"model":"m","error":{"message":"oom","type":"server_error","code":500}}`, "[DONE]")
	r := do(t, images(record.EndpointImageEdit), replay{header: sseHeader, pieces: [][]byte{errStream}}, Request{})
	if r.OK() || r.Err.Kind != record.KindStreamError {
		t.Fatalf("error event: %+v", r.Err)
	}
}

// vLLM's ErrorResponse as a 200 body, and as an edit stream's event, fails the request.
func TestImagesErrorResponseInsideA200(t *testing.T) {
	t.Parallel()
	errBody := `{"object":"error","message":"diffusion stage died","type":"InternalServerError","code":500}`
	for name, rp := range map[string]replay{
		"body":  {header: map[string]string{"Content-Type": "application/json"}, pieces: [][]byte{[]byte(errBody)}},
		"event": {header: sseHeader, pieces: [][]byte{sseStream(errBody, "[DONE]")}},
	} {
		r := do(t, images(record.EndpointImageEdit), rp, Request{})
		if r.OK() || r.Err.Kind != record.KindStreamError || !strings.Contains(r.Err.Message, "InternalServerError: diffusion stage died (code 500)") {
			t.Errorf("%s: err %+v", name, r.Err)
		}
	}
}

// An image whose base64 is corrupt, or whose header is cut short, is not an image the
// server made: the request fails. A format without a decoder only has no size.
func TestImagesThatAreNotImages(t *testing.T) {
	t.Parallel()
	png := pngB64(8, 8)
	for _, tc := range []struct {
		name, b64 string
		ok        bool
		msg       string
	}{
		{"corrupt base64", "@@@@not base64", false, "image: chunk: bad base64: byte 0 ('@') is not base64"},
		{"corrupt after a whole header", png[:40] + "!!!!" + png[44:], false, "byte 40 ('!') is not base64"},
		{"padding in the middle", png[:40] + "====" + png[44:], false, "padding at byte 40"},
		{"cut after its header", png[:len(png)-3], false, "not a whole base64 text"},
		{"escaped line breaks", png[:40] + `\r\n` + png[40:], true, ""},
		{"no padding", strings.TrimRight(png, "="), true, ""},
		{"header cut short", png[:12], false, "image: header cut short: unexpected EOF"},
		{"unknown format", base64.StdEncoding.EncodeToString([]byte("RIFF\x10\x00\x00\x00WEBPVP8 ")), true, ""},
		{"a whole PNG", png, true, ""},
	} {
		body := `{"data":[{"b64_json":"` + tc.b64 + `"}]}`
		r := do(t, images(record.EndpointImages), replay{header: map[string]string{"Content-Type": "application/json"}, pieces: [][]byte{[]byte(body)}}, Request{})
		if r.OK() != tc.ok || (!tc.ok && (r.Err.Kind != record.KindMalformed || !strings.Contains(r.Err.Message, tc.msg))) {
			t.Errorf("%s: ok %v, err %+v", tc.name, r.OK(), r.Err)
		}
	}
}
