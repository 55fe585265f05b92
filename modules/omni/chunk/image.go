package chunk

import (
	"bytes"
	"encoding/base64"
	"image"
	_ "image/gif" // register decoders for DecodeConfig
	_ "image/jpeg"
	_ "image/png"
	"io"
)

// ImageSize reads the width and height of a base64 image or a data: URL holding one,
// decoding only the header. Formats the standard library does not know (webp) fail.
func ImageSize(src []byte) (w, h int, err error) {
	cfg, _, err := image.DecodeConfig(base64.NewDecoder(base64.StdEncoding, bytes.NewReader(inline(src))))
	if err != nil {
		return 0, 0, err
	}
	return cfg.Width, cfg.Height, nil
}

// CheckBase64 reports where an inline image's base64 (or data: URL) is corrupt, nil when
// it is valid: ImageSize cannot tell corrupt base64 from a format it has no decoder for.
func CheckBase64(src []byte) error {
	_, err := io.Copy(io.Discard, base64.NewDecoder(base64.StdEncoding, bytes.NewReader(inline(src))))
	return err
}

// inline is the base64 of an image: src, or the payload of a data: URL.
func inline(src []byte) []byte {
	if bytes.HasPrefix(src, []byte("data:")) {
		if i := bytes.Index(src, []byte(";base64,")); i >= 0 {
			return src[i+len(";base64,"):]
		}
	}
	return src
}
