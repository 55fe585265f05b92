package chunk

import (
	"bytes"
	"encoding/base64"
	"image"
	_ "image/gif" // register decoders for DecodeConfig
	_ "image/jpeg"
	_ "image/png"
)

// ImageSize reads the width and height of a base64 image or a data: URL holding one,
// decoding only the header. Formats the standard library does not know (webp) fail.
func ImageSize(src []byte) (w, h int, err error) {
	if bytes.HasPrefix(src, []byte("data:")) {
		if i := bytes.Index(src, []byte(";base64,")); i >= 0 {
			src = src[i+len(";base64,"):]
		}
	}
	cfg, _, err := image.DecodeConfig(base64.NewDecoder(base64.StdEncoding, bytes.NewReader(src)))
	if err != nil {
		return 0, 0, err
	}
	return cfg.Width, cfg.Height, nil
}
