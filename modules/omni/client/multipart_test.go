package client

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/omnik-dev/omnik/modules/omni/record"
)

func TestMultipartImageEdit(t *testing.T) {
	t.Parallel()
	body, ct, err := Multipart([][2]string{{"prompt", "make it blue"}, {"n", "1"}, {"url", "https://x/a.png"}},
		[]FormFile{{Field: "image", Name: "a.png", ContentType: "image/png", Data: []byte("PNG1")}, {Field: "image", Name: "b.png", Data: []byte("PNG2")}, {Field: "mask_image", Name: "m.png", Data: []byte("MASK")}})
	if err != nil {
		t.Fatal(err)
	}
	var images []string
	var prompt, mask, url string
	s := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		for _, fh := range r.MultipartForm.File["image"] {
			f, _ := fh.Open()
			b, _ := io.ReadAll(f)
			images = append(images, fh.Filename+"="+string(b))
		}
		f, _, _ := r.FormFile("mask_image")
		b, _ := io.ReadAll(f)
		prompt, mask, url = r.FormValue("prompt"), string(b), r.FormValue("url")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"created":1,"data":[{"b64_json":"`+pngB64(2, 2)+`"}]}`)
	}))
	r := Images(context.Background(), s.Client(), Request{URL: s.URL, Body: body, ContentType: ct}, record.EndpointImageEdit)
	if !r.OK() || r.Images.Count != 1 || len(images) != 2 || images[1] != "b.png=PNG2" || prompt != "make it blue" || mask != "MASK" || url != "https://x/a.png" {
		t.Fatalf("%+v images %q prompt %q mask %q", r.Err, images, prompt, mask)
	}
}
