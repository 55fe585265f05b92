package client

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/textproto"
)

// FormFile is one file part of a multipart body (an image edit's image or mask_image).
type FormFile struct {
	Field       string // form field: image, image[], mask_image, reference_image
	Name        string // file name sent to the server
	ContentType string // application/octet-stream when empty
	Data        []byte
}

// Multipart builds a multipart/form-data body from fields (in order, repeatable) and
// files, as vLLM-Omni's /v1/images/edits takes them. It returns the body and its
// Content-Type with the boundary.
func Multipart(fields [][2]string, files []FormFile) ([]byte, string, error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, f := range fields {
		if err := w.WriteField(f[0], f[1]); err != nil {
			return nil, "", fmt.Errorf("multipart field %q: %w", f[0], err)
		}
	}
	for _, f := range files {
		h := make(textproto.MIMEHeader)
		h.Set("Content-Disposition", multipart.FileContentDisposition(f.Field, f.Name))
		ct := f.ContentType
		if ct == "" {
			ct = "application/octet-stream"
		}
		h.Set("Content-Type", ct)
		p, err := w.CreatePart(h)
		if err != nil {
			return nil, "", fmt.Errorf("multipart file %q: %w", f.Field, err)
		}
		p.Write(f.Data) // writes to a bytes.Buffer cannot fail
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), w.FormDataContentType(), nil
}
