package mock

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
)

func pngSize(t *testing.T, b []byte) (int, int) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	return img.Bounds().Dx(), img.Bounds().Dy()
}

type imagesBody struct {
	Created int64 `json:"created"`
	Data    []struct {
		B64JSON       string  `json:"b64_json"`
		URL           *string `json:"url"`
		RevisedPrompt *string `json:"revised_prompt"`
	} `json:"data"`
	OutputFormat   *string            `json:"output_format"`
	Size           *string            `json:"size"`
	StageDurations map[string]float64 `json:"stage_durations"`
	Metrics        *metricsObject     `json:"metrics"`
	raw            map[string]json.RawMessage
}

func decodeImages(t *testing.T, resp *http.Response) imagesBody {
	t.Helper()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	var body imagesBody
	if err := json.Unmarshal(b, &body); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal(b, &body.raw)
	return body
}

func TestImageGenerationsReturnPNGsOfTheRequestedSize(t *testing.T) {
	t.Parallel()
	_, u := startServer(t)
	body := decodeImages(t, post(t, u+"/v1/images/generations",
		`{"model":"ByteDance-Seed/BAGEL-7B-MoT","prompt":"a fox","n":2,"size":"96x64","num_inference_steps":4,"return_stage_metrics":true}`))
	if len(body.Data) != 2 || body.Data[0].B64JSON == body.Data[1].B64JSON {
		t.Fatalf("want 2 distinct images, got %d", len(body.Data))
	}
	for _, d := range body.Data {
		if w, h := pngSize(t, b64(t, d.B64JSON)); w != 96 || h != 64 {
			t.Fatalf("image %dx%d", w, h)
		}
		if d.URL != nil || d.RevisedPrompt != nil {
			t.Fatal("url and revised_prompt must be null")
		}
	}
	// Multi-stage pipelines leave output_format and size null; no usage.
	if body.OutputFormat != nil || body.Size != nil || body.raw["usage"] != nil {
		t.Fatalf("body = %v", body.raw)
	}
	dit := body.Metrics.StageMetrics["1"]
	if dit == nil || dit.OutputUnitType != "image" || dit.OutputUnitCount != 2 || dit.ImagePixels != 2*96*64 ||
		dit.DenoiseStepLatencyMs <= 0 || body.StageDurations["dit_gen_ms"] != dit.StageGenTimeMs {
		t.Fatalf("dit metrics = %+v, durations %v", dit, body.StageDurations)
	}
}

func TestImageGenerationsFileFormat(t *testing.T) {
	t.Parallel()
	_, u := startServer(t)
	one := post(t, u+"/v1/images/generations", `{"prompt":"a fox","size":"32x32","response_format":"file"}`)
	b, _ := io.ReadAll(one.Body)
	if one.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("Content-Type %q", one.Header.Get("Content-Type"))
	}
	pngSize(t, b)
	two := post(t, u+"/v1/images/generations", `{"prompt":"a fox","size":"32x32","n":2,"response_format":"file"}`)
	b, _ = io.ReadAll(two.Body)
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil || len(zr.File) != 2 {
		t.Fatalf("zip: %v", err)
	}
}

// editForm builds a multipart edit request; a nil image sends none.
func editForm(t *testing.T, fields map[string]string, img []byte) (string, *bytes.Buffer) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		_ = mw.WriteField(k, v)
	}
	if img != nil {
		fw, _ := mw.CreateFormFile("image", "in.png")
		_, _ = fw.Write(img)
	}
	_ = mw.Close()
	return mw.FormDataContentType(), &buf
}

func postForm(t *testing.T, url string, fields map[string]string, img []byte) *http.Response {
	t.Helper()
	ct, body := editForm(t, fields, img)
	resp, err := http.Post(url, ct, body)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

func TestImageEditAutoSizeFollowsTheInput(t *testing.T) {
	t.Parallel()
	_, u := startServer(t)
	in := renderPNG(40, 30, 1)
	body := decodeImages(t, postForm(t, u+"/v1/images/edits", map[string]string{"prompt": "make it blue"}, in))
	if w, h := pngSize(t, b64(t, body.Data[0].B64JSON)); w != 40 || h != 30 {
		t.Fatalf("edit %dx%d, want the input's 40x30", w, h)
	}
	// A data URL works as the input too.
	url := "data:image/png;base64," + base64.StdEncoding.EncodeToString(in)
	body = decodeImages(t, postForm(t, u+"/v1/images/edits", map[string]string{"prompt": "x", "url": url}, nil))
	if len(body.Data) != 1 {
		t.Fatal("no image from a data URL input")
	}
}

func TestImageEditStreamSendsARDeltasThenTheImage(t *testing.T) {
	t.Parallel()
	_, u := startServer(t)
	resp := postForm(t, u+"/v1/images/edits", map[string]string{"model": "tencent/HunyuanImage-3.0",
		"prompt": "add a hat", "stream": "true", "size": "48x48", "return_stage_metrics": "true"}, renderPNG(16, 16, 2))
	evs := mustSSE(t, resp)
	if evs[len(evs)-1].data != "[DONE]" {
		t.Fatal("no [DONE]")
	}
	var deltas int
	for i, e := range evs[:len(evs)-1] {
		var ev struct {
			Object  string         `json:"object"`
			Type    string         `json:"type"`
			Delta   string         `json:"delta"`
			Model   string         `json:"model"`
			Size    string         `json:"size"`
			Metrics *metricsObject `json:"metrics"`
			Data    []struct {
				B64JSON string `json:"b64_json"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(e.data), &ev); err != nil || ev.Object != "image.edit.chunk" || ev.Model != "tencent/HunyuanImage-3.0" {
			t.Fatalf("event %q", e.data)
		}
		last := i == len(evs)-2
		switch {
		case !last && ev.Type == "ar_delta" && ev.Delta != "":
			deltas++
		case last && ev.Type == "image" && len(ev.Data) == 1 && ev.Size == "48x48":
			pngSize(t, b64(t, ev.Data[0].B64JSON))
			if ev.Metrics == nil || len(ev.Metrics.StageMetrics) != 2 {
				t.Fatalf("image event metrics = %+v", ev.Metrics)
			}
		default:
			t.Fatalf("event %d out of order: %.120s", i, e.data)
		}
	}
	if deltas != 24 {
		t.Fatalf("ar_delta events = %d, want the AR stage's 24 tokens", deltas)
	}
}

func TestImageEditRejections(t *testing.T) {
	t.Parallel()
	single := Profile{Name: "qwen-image", Model: "Qwen/Qwen-Image-Edit", Stages: []Stage{
		{Name: "dit", Output: OutputImage, DenoiseSteps: 2, StepTime: ms}}}
	_, u := startServer(t, WithProfiles(single), WithProfile("qwen-image"))
	img := renderPNG(8, 8, 0)
	tests := []struct {
		name   string
		fields map[string]string
		img    []byte
		code   int
		msg    string
	}{
		{"missing image", map[string]string{"prompt": "x"}, nil, 422, "Field 'image' or 'url' is required"},
		{"stream on a single-stage model", map[string]string{"prompt": "x", "stream": "true"}, img, 400, "multi-stage"},
		{"bad size", map[string]string{"prompt": "x", "size": "0x5"}, img, 400, "Invalid size format"},
		{"missing prompt", map[string]string{}, img, 400, "prompt"},
		{"response_format file", map[string]string{"prompt": "x", "response_format": "file"}, img, 400, "b64_json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			resp := postForm(t, u+"/v1/images/edits", tc.fields, tc.img)
			e := errorOf(t, resp.Body)
			if resp.StatusCode != tc.code || e.Code != tc.code || !strings.Contains(e.Message, tc.msg) {
				t.Fatalf("%d %+v", resp.StatusCode, e)
			}
		})
	}
	// A single-stage model reports output_format and size.
	body := decodeImages(t, postForm(t, u+"/v1/images/edits", map[string]string{"prompt": "x"}, img))
	if body.OutputFormat == nil || *body.OutputFormat != "png" || body.Size == nil || *body.Size != "8x8" {
		t.Fatalf("single-stage body = %v", body.raw)
	}
}
