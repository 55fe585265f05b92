// Package wav reads RIFF/WAVE headers well enough to count the audio a server sent:
// channels, rate, sample format, frames and duration. It accepts the streaming placeholder
// header vLLM-Omni writes (data size 0xFFFFFFFF or 0) and counts the bytes that arrived.
package wav

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Errors returned by the parser; each is wrapped with the byte offset where it was found.
var (
	// ErrShortHeader means the bytes end inside the header: a streaming reader should wait
	// for more, a whole file is broken.
	ErrShortHeader = errors.New("wav: header truncated")
	// ErrNotWAV means the bytes do not start with RIFF....WAVE.
	ErrNotWAV = errors.New("wav: not a RIFF/WAVE file")
	// ErrBadFormat means the fmt chunk is missing, malformed or self-contradictory.
	ErrBadFormat = errors.New("wav: bad fmt chunk")
	// ErrUnsupported means a codec other than integer PCM or IEEE float.
	ErrUnsupported = errors.New("wav: unsupported encoding")
)

// Encoding of the samples.
const (
	PCM   = 1 // integer PCM
	Float = 3 // IEEE float
)

// Format describes the samples. The zero value is unusable; see PCM16.
type Format struct {
	Encoding      int // PCM or Float
	Channels      int
	SampleRate    int
	BitsPerSample int
}

// PCM16 returns the format of raw little-endian 16-bit PCM, as vLLM-Omni streams it.
func PCM16(rate, channels int) Format {
	return Format{Encoding: PCM, Channels: channels, SampleRate: rate, BitsPerSample: 16}
}

// FrameSize is the bytes of one frame (one sample per channel).
func (f Format) FrameSize() int { return f.Channels * ((f.BitsPerSample + 7) / 8) }

// Frames is the number of whole frames in n bytes of sample data.
func (f Format) Frames(n int64) int64 {
	if fs := f.FrameSize(); fs > 0 && n > 0 {
		return n / int64(fs)
	}
	return 0
}

// Seconds is the playback time of frames.
func (f Format) Seconds(frames int64) float64 {
	if f.SampleRate <= 0 {
		return 0
	}
	return float64(frames) / float64(f.SampleRate)
}

// Header is a parsed WAV header.
type Header struct {
	Format
	DataOffset int   // offset of the first sample byte
	DataSize   int64 // size declared by the data chunk; -1 for a streaming placeholder
}

// Info is a WAV file's header plus what its sample bytes hold.
type Info struct {
	Header
	DataBytes int64 // sample bytes counted (declared size, or what arrived when less/unknown)
	Frames    int64
	Extra     int64 // trailing bytes not filling a whole frame
}

// Seconds is the playback time of the file.
func (i Info) Seconds() float64 { return i.Format.Seconds(i.Frames) }

// Parse reads a whole WAV held in b. A declared data size larger than len(b), or a
// placeholder size, counts the bytes present.
func Parse(b []byte) (Info, error) {
	h, err := ParseHeader(b)
	if err != nil {
		return Info{}, err
	}
	return h.Info(int64(len(b) - h.DataOffset)), nil
}

// Info counts n sample bytes that followed the header, bounded by the declared size.
func (h Header) Info(n int64) Info {
	if h.DataSize >= 0 && n > h.DataSize {
		n = h.DataSize
	}
	in := Info{Header: h, DataBytes: n, Frames: h.Frames(n)}
	in.Extra = n - in.Frames*int64(h.FrameSize())
	return in
}

// ParseHeader reads the RIFF header and chunks up to the start of the data chunk. It
// needs only the header bytes; ErrShortHeader asks for more.
func ParseHeader(b []byte) (Header, error) {
	if len(b) < 12 {
		if !riffPrefix(b) {
			return Header{}, fmt.Errorf("%w at byte 0: starts with %q", ErrNotWAV, b[:min(4, len(b))])
		}
		return Header{}, fmt.Errorf("%w: %d bytes, the RIFF header needs 12", ErrShortHeader, len(b))
	}
	if string(b[0:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return Header{}, fmt.Errorf("%w at byte 0: starts with %q", ErrNotWAV, b[:12])
	}
	var h Header
	haveFmt := false
	for off := 12; ; {
		if len(b)-off < 8 {
			return Header{}, fmt.Errorf("%w at byte %d: chunk header needs 8 bytes, %d left", ErrShortHeader, off, len(b)-off)
		}
		id := string(b[off : off+4])
		size := binary.LittleEndian.Uint32(b[off+4:])
		body := off + 8
		switch id {
		case "data":
			if !haveFmt {
				return Header{}, fmt.Errorf("%w at byte %d: data chunk before any fmt chunk", ErrBadFormat, off)
			}
			h.DataOffset, h.DataSize = body, int64(size)
			if size == 0xFFFFFFFF || size == 0 {
				h.DataSize = -1
			}
			return h, nil
		case "fmt ":
			f, err := parseFmt(b[body:], body, size)
			if err != nil {
				return Header{}, err
			}
			h.Format, haveFmt = f, true
		}
		// Chunks are word-aligned; skip this one and its pad byte.
		next := int64(body) + int64(size) + int64(size&1)
		if next > int64(len(b)) {
			return Header{}, fmt.Errorf("%w at byte %d: %q chunk of %d bytes, %d left", ErrShortHeader, off, id, size, len(b)-body)
		}
		off = int(next)
	}
}

// parseFmt reads a fmt chunk of the declared size from c, which holds the bytes that
// arrived from the chunk's body on.
func parseFmt(c []byte, at int, size uint32) (Format, error) {
	if size < 16 {
		return Format{}, fmt.Errorf("%w at byte %d: fmt chunk of %d bytes, needs 16", ErrBadFormat, at, size)
	}
	if len(c) < 16 {
		return Format{}, fmt.Errorf("%w at byte %d: fmt chunk needs 16 bytes, %d left", ErrShortHeader, at, len(c))
	}
	enc := int(binary.LittleEndian.Uint16(c[0:]))
	f := Format{
		Encoding:      enc,
		Channels:      int(binary.LittleEndian.Uint16(c[2:])),
		SampleRate:    int(binary.LittleEndian.Uint32(c[4:])),
		BitsPerSample: int(binary.LittleEndian.Uint16(c[14:])),
	}
	align := int(binary.LittleEndian.Uint16(c[12:]))
	if enc == 0xFFFE { // WAVE_FORMAT_EXTENSIBLE: the real code opens the sub-format GUID
		if size < 26 {
			return Format{}, fmt.Errorf("%w at byte %d: extensible fmt chunk of %d bytes lacks its sub-format", ErrBadFormat, at, size)
		}
		if len(c) < 26 {
			return Format{}, fmt.Errorf("%w at byte %d: extensible fmt chunk needs 26 bytes, %d left", ErrShortHeader, at, len(c))
		}
		f.Encoding = int(binary.LittleEndian.Uint16(c[24:]))
	}
	switch {
	case f.Encoding != PCM && f.Encoding != Float:
		return Format{}, fmt.Errorf("%w at byte %d: format code %#x", ErrUnsupported, at, f.Encoding)
	case f.Channels == 0 || f.SampleRate == 0 || f.BitsPerSample == 0 || f.BitsPerSample > 64:
		return Format{}, fmt.Errorf("%w at byte %d: %d channels, %d Hz, %d bits", ErrBadFormat, at, f.Channels, f.SampleRate, f.BitsPerSample)
	case align != f.FrameSize():
		return Format{}, fmt.Errorf("%w at byte %d: block align %d, expected %d for %d channels of %d bits",
			ErrBadFormat, at+12, align, f.FrameSize(), f.Channels, f.BitsPerSample)
	}
	return f, nil
}

// riffPrefix reports whether b, shorter than 12 bytes, could start a RIFF/WAVE header.
func riffPrefix(b []byte) bool {
	const magic = "RIFF\x00\x00\x00\x00WAVE"
	for i, c := range b {
		if (i < 4 || i >= 8) && c != magic[i] {
			return false
		}
	}
	return true
}
