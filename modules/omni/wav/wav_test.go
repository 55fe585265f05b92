package wav

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

type chunk struct {
	id   string
	body []byte
}

// build writes a RIFF/WAVE file from chunks; sizes are taken from the bodies unless
// dataSize overrides the data chunk's.
func build(dataSize int64, chunks ...chunk) []byte {
	var b bytes.Buffer
	b.WriteString("RIFF\xff\xff\xff\xffWAVE")
	for _, c := range chunks {
		b.WriteString(c.id)
		size := uint32(len(c.body))
		if c.id == "data" && dataSize >= 0 {
			size = uint32(dataSize)
		}
		binary.Write(&b, binary.LittleEndian, size)
		b.Write(c.body)
		if len(c.body)%2 == 1 && c.id != "data" {
			b.WriteByte(0)
		}
	}
	return b.Bytes()
}

func fmtChunk(enc, ch, rate, bits, align int) chunk {
	b := make([]byte, 16)
	binary.LittleEndian.PutUint16(b[0:], uint16(enc))
	binary.LittleEndian.PutUint16(b[2:], uint16(ch))
	binary.LittleEndian.PutUint32(b[4:], uint32(rate))
	binary.LittleEndian.PutUint32(b[8:], uint32(rate*align))
	binary.LittleEndian.PutUint16(b[12:], uint16(align))
	binary.LittleEndian.PutUint16(b[14:], uint16(bits))
	return chunk{"fmt ", b}
}

func extensible(ch, rate, bits, sub int) chunk {
	c := fmtChunk(0xFFFE, ch, rate, bits, ch*bits/8)
	ext := make([]byte, 24)
	binary.LittleEndian.PutUint16(ext[0:], 22)
	binary.LittleEndian.PutUint16(ext[8:], uint16(sub))
	c.body = append(c.body, ext...)
	return c
}

func TestParse(t *testing.T) {
	t.Parallel()
	pcm := make([]byte, 4800) // 0.1 s of 24 kHz mono s16
	tests := []struct {
		name    string
		file    []byte
		format  Format
		frames  int64
		extra   int64
		seconds float64
		err     error
	}{
		{"pcm16 mono 24k", build(-1, fmtChunk(1, 1, 24000, 16, 2), chunk{"data", pcm}), PCM16(24000, 1), 2400, 0, 0.1, nil},
		{"streaming placeholder size", build(0xFFFFFFFF, fmtChunk(1, 1, 24000, 16, 2), chunk{"data", pcm}), PCM16(24000, 1), 2400, 0, 0.1, nil},
		{"zero placeholder size", build(0, fmtChunk(1, 1, 24000, 16, 2), chunk{"data", pcm}), PCM16(24000, 1), 2400, 0, 0.1, nil},
		{"declared size larger than arrived", build(1<<20, fmtChunk(1, 1, 24000, 16, 2), chunk{"data", pcm}), PCM16(24000, 1), 2400, 0, 0.1, nil},
		{"declared size smaller than present", build(480, fmtChunk(1, 1, 24000, 16, 2), chunk{"data", pcm}), PCM16(24000, 1), 240, 0, 0.01, nil},
		{"odd trailing byte", build(-1, fmtChunk(1, 1, 24000, 16, 2), chunk{"data", make([]byte, 4801)}), PCM16(24000, 1), 2400, 1, 0.1, nil},
		{"partial frame", build(-1, fmtChunk(1, 2, 44100, 16, 4), chunk{"data", make([]byte, 4802)}), PCM16(44100, 2), 1200, 2, 1200.0 / 44100, nil},
		{"list chunk before fmt, odd pad", build(-1, chunk{"LIST", []byte("abc")}, fmtChunk(1, 1, 16000, 16, 2), chunk{"data", pcm}), PCM16(16000, 1), 2400, 0, 0.15, nil},
		{"float32 stereo", build(-1, fmtChunk(3, 2, 48000, 32, 8), chunk{"data", pcm}), Format{Float, 2, 48000, 32}, 600, 0, 0.0125, nil},
		{"extensible pcm", build(-1, extensible(1, 24000, 16, 1), chunk{"data", pcm}), PCM16(24000, 1), 2400, 0, 0.1, nil},
		{"extensible float", build(-1, extensible(1, 24000, 32, 3), chunk{"data", pcm}), Format{Float, 1, 24000, 32}, 1200, 0, 0.05, nil},
		{"header only", build(-1, fmtChunk(1, 1, 24000, 16, 2), chunk{"data", nil}), PCM16(24000, 1), 0, 0, 0, nil},
		{"not riff", []byte("ID3\x03 mp3 bytes here"), Format{}, 0, 0, 0, ErrNotWAV},
		{"riff but not wave", []byte("RIFF\x00\x00\x00\x00AVI LIST"), Format{}, 0, 0, 0, ErrNotWAV},
		{"cut in riff header", []byte("RIFF\x00\x00"), Format{}, 0, 0, 0, ErrShortHeader},
		{"cut in fmt", build(-1, fmtChunk(1, 1, 24000, 16, 2))[:30], Format{}, 0, 0, 0, ErrShortHeader},
		{"no data chunk", build(-1, fmtChunk(1, 1, 24000, 16, 2)), Format{}, 0, 0, 0, ErrShortHeader},
		{"data before fmt", build(-1, chunk{"data", pcm}), Format{}, 0, 0, 0, ErrBadFormat},
		{"fmt too small", build(-1, chunk{"fmt ", make([]byte, 8)}, chunk{"data", pcm}), Format{}, 0, 0, 0, ErrBadFormat},
		{"zero channels", build(-1, fmtChunk(1, 0, 24000, 16, 0), chunk{"data", pcm}), Format{}, 0, 0, 0, ErrBadFormat},
		{"block align lies", build(-1, fmtChunk(1, 1, 24000, 16, 4), chunk{"data", pcm}), Format{}, 0, 0, 0, ErrBadFormat},
		{"mp3 in wav", build(-1, fmtChunk(0x55, 1, 24000, 16, 2), chunk{"data", pcm}), Format{}, 0, 0, 0, ErrUnsupported},
		{"extensible without sub-format", build(-1, chunk{"fmt ", fmtChunk(0xFFFE, 1, 24000, 16, 2).body}, chunk{"data", pcm}), Format{}, 0, 0, 0, ErrBadFormat},
		{"huge unknown chunk", append(build(-1, fmtChunk(1, 1, 24000, 16, 2)), "junk\xff\xff\xff\x7f"...), Format{}, 0, 0, 0, ErrShortHeader},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in, err := Parse(tc.file)
			if !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if err != nil {
				return
			}
			if in.Format != tc.format || in.Frames != tc.frames || in.Extra != tc.extra {
				t.Fatalf("got %+v, want format %+v frames %d extra %d", in, tc.format, tc.frames, tc.extra)
			}
			if d := in.Seconds() - tc.seconds; d > 1e-9 || d < -1e-9 {
				t.Fatalf("seconds %v, want %v", in.Seconds(), tc.seconds)
			}
		})
	}
}

func TestErrorsSayWhere(t *testing.T) {
	t.Parallel()
	_, err := Parse(build(-1, fmtChunk(1, 1, 24000, 16, 4), chunk{"data", nil}))
	if err == nil || err.Error() != "wav: bad fmt chunk at byte 32: block align 4, expected 2 for 1 channels of 16 bits" {
		t.Fatalf("err = %v", err)
	}
}

// The raw speech stream: one placeholder header, then PCM, split at every byte boundary.
func TestStreamEveryByteBoundary(t *testing.T) {
	t.Parallel()
	pcm := make([]byte, 1000)
	file := build(0xFFFFFFFF, chunk{"LIST", []byte("info")}, fmtChunk(1, 1, 24000, 16, 2), chunk{"data", pcm})
	for i := 0; i <= len(file); i++ {
		for j := i; j <= len(file); j += 97 {
			var s Stream
			total := 0
			for _, p := range [][]byte{file[:i], file[i:j], file[j:]} {
				n, err := s.Add(p)
				if err != nil {
					t.Fatalf("split %d/%d: %v", i, j, err)
				}
				total += n
			}
			in, ok := s.Info()
			if !ok || total != 1000 || in.Frames != 500 || in.DataBytes != 1000 || s.Pending() != 0 {
				t.Fatalf("split %d/%d: ok %v total %d info %+v", i, j, ok, total, in)
			}
		}
	}
}

func TestStreamRejectsEndlessHeader(t *testing.T) {
	t.Parallel()
	var s Stream
	s.Add([]byte("RIFF\xff\xff\xff\xffWAVEjunk\xff\xff\x00\x00"))
	if _, err := s.Add(make([]byte, MaxHeader)); !errors.Is(err, ErrBadFormat) {
		t.Fatalf("err = %v", err)
	}
}
