package chunk

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	_ "image/gif" // register decoders for DecodeConfig
	_ "image/jpeg"
	_ "image/png"
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
// it is valid: ImageSize reads only the header, and cannot tell corrupt base64 from a
// format it has no decoder for. It is one pass without decoding. Line breaks, which
// decoders skip, and a missing final padding are accepted.
func CheckBase64(src []byte) error {
	s := inline(src)
	n := 0 // base64 characters so far
	for i, c := range s {
		switch base64Class[c] {
		case b64Char:
			n++
		case b64Break:
		case b64Pad:
			pad := bytes.Count(s[i:], []byte("="))
			if rest := bytes.Trim(s[i:], "=\r\n"); len(rest) > 0 || pad > 2 || (n+pad)%4 != 0 {
				return fmt.Errorf("%w: padding at byte %d is not at the end of a whole base64 text", ErrBadBase64, i)
			}
			return nil
		default:
			return fmt.Errorf("%w: byte %d (%q) is not base64", ErrBadBase64, i, c)
		}
	}
	if n%4 == 1 {
		return fmt.Errorf("%w: %d characters are not a whole base64 text (cut short?)", ErrBadBase64, n)
	}
	return nil
}

const (
	b64Other = iota
	b64Char
	b64Break
	b64Pad
)

var base64Class = func() (t [256]uint8) {
	for _, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/" {
		t[c] = b64Char
	}
	t['\r'], t['\n'], t['='] = b64Break, b64Break, b64Pad
	return t
}()

// inline is the base64 of an image: src, or the payload of a data: URL.
func inline(src []byte) []byte {
	if bytes.HasPrefix(src, []byte("data:")) {
		if i := bytes.Index(src, []byte(";base64,")); i >= 0 {
			return src[i+len(";base64,"):]
		}
	}
	return src
}
