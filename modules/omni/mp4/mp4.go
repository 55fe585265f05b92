// Package mp4 reads an MP4's header boxes as the file streams past, well enough to say
// how long the video is and how many frames its video track holds, without decoding
// anything: the movie header's duration and timescale (mvhd) and the sample count of the
// first video track (stsz). Media data (mdat) is skipped, never held.
package mp4

import (
	"encoding/binary"
	"errors"
	"io"
)

// MaxMoov bounds the moov box read into memory, once per download and VU: a clip's
// header and sample tables are kilobytes; a larger one is skipped.
const MaxMoov = 1 << 20

// ErrNotMP4 means the bytes are not a sequence of ISO BMFF boxes.
var ErrNotMP4 = errors.New("mp4: not an ISO base media file")

// Info is what the header boxes said. Zero fields were not found.
type Info struct {
	Seconds float64 // mvhd duration / timescale
	Frames  int64   // sample count of the first video track
}

// Scan reads r to its end, box by box, and returns what the moov box says; the bytes are
// consumed whatever it finds. An error of r (other than io.EOF) is returned as is. A
// stream that stops being boxes, or ends inside one, is read to its end all the same and
// gives ErrNotMP4 with what was found before.
func Scan(r io.Reader) (Info, error) {
	er := &reader{r: r}
	info, ok := scan(er)
	if !ok && er.err == nil {
		_, _ = io.Copy(io.Discard, er)
	}
	switch {
	case er.err != nil:
		return info, er.err
	case !ok:
		return info, ErrNotMP4
	}
	return info, nil
}

// reader keeps r's first error other than io.EOF, which Scan must not mistake for the
// end of a file (a body cut short of its Content-Length).
type reader struct {
	r   io.Reader
	err error
}

func (e *reader) Read(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF {
		e.err = err
	}
	return n, err
}

// scan walks the top-level boxes; ok is false when the bytes stop being boxes or end
// inside one (or r failed: reader.err says).
func scan(r *reader) (info Info, ok bool) {
	var head [16]byte
	for {
		if _, err := io.ReadFull(r, head[:8]); err != nil {
			return info, err == io.EOF
		}
		size, typ := int64(binary.BigEndian.Uint32(head[:4])), string(head[4:8])
		hdr := int64(8)
		switch size {
		case 0: // to the end of the file
			_, err := io.Copy(io.Discard, r)
			return info, err == nil
		case 1:
			if _, err := io.ReadFull(r, head[8:16]); err != nil {
				return info, false
			}
			size, hdr = int64(binary.BigEndian.Uint64(head[8:16])), 16
		}
		if size < hdr || !printable(typ) {
			return info, false
		}
		body := size - hdr
		if typ != "moov" || body > MaxMoov {
			if _, err := io.CopyN(io.Discard, r, body); err != nil {
				return info, false
			}
			continue
		}
		// Grown as bytes arrive: a box's claimed size does not size the buffer.
		moov, err := io.ReadAll(io.LimitReader(r, body))
		if err != nil || int64(len(moov)) < body {
			return info, false
		}
		info = parseMoov(moov)
	}
}

// printable reports a box type of four printable ASCII bytes, as every real one is.
func printable(typ string) bool {
	for i := 0; i < len(typ); i++ {
		if typ[i] < 0x20 || typ[i] > 0x7e {
			return false
		}
	}
	return true
}

// children calls fn for each box inside b (the body of a container box).
func children(b []byte, fn func(typ string, body []byte)) {
	for len(b) >= 8 {
		size, hdr := uint64(binary.BigEndian.Uint32(b[:4])), uint64(8)
		if size == 1 && len(b) >= 16 {
			size, hdr = binary.BigEndian.Uint64(b[8:16]), 16
		} else if size == 0 {
			size = uint64(len(b))
		}
		if size < hdr || size > uint64(len(b)) {
			return
		}
		fn(string(b[4:8]), b[hdr:size])
		b = b[size:]
	}
}

func parseMoov(moov []byte) Info {
	var info Info
	children(moov, func(typ string, body []byte) {
		switch typ {
		case "mvhd":
			info.Seconds = movieSeconds(body)
		case "trak":
			if info.Frames == 0 {
				info.Frames = videoSamples(body)
			}
		}
	})
	return info
}

// movieSeconds is mvhd's duration over its timescale (version 0: 32-bit fields, 1: 64-bit).
func movieSeconds(b []byte) float64 {
	var scale uint32
	var dur uint64
	switch {
	case len(b) >= 20 && b[0] == 0:
		scale, dur = binary.BigEndian.Uint32(b[12:16]), uint64(binary.BigEndian.Uint32(b[16:20]))
		if dur == 0xFFFFFFFF { // unknown
			dur = 0
		}
	case len(b) >= 32 && b[0] == 1:
		scale, dur = binary.BigEndian.Uint32(b[20:24]), binary.BigEndian.Uint64(b[24:32])
		if dur == 1<<64-1 {
			dur = 0
		}
	}
	if scale == 0 {
		return 0
	}
	return float64(dur) / float64(scale)
}

// videoSamples is a trak's stsz sample count when its handler is video ("vide"), else 0.
func videoSamples(trak []byte) int64 {
	var video bool
	var samples int64
	children(trak, func(typ string, mdia []byte) {
		if typ != "mdia" {
			return
		}
		children(mdia, func(typ string, body []byte) {
			switch typ {
			case "hdlr":
				video = len(body) >= 12 && string(body[8:12]) == "vide"
			case "minf":
				children(body, func(typ string, stbl []byte) {
					if typ != "stbl" {
						return
					}
					children(stbl, func(typ string, stsz []byte) {
						if typ == "stsz" && len(stsz) >= 12 {
							samples = int64(binary.BigEndian.Uint32(stsz[8:12]))
						}
					})
				})
			}
		})
	})
	if !video {
		return 0
	}
	return samples
}
