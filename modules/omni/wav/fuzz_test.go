package wav

import (
	"errors"
	"testing"
)

// FuzzParse checks that no input panics, that errors are one of the package's, and that
// counted frames never exceed the bytes present.
func FuzzParse(f *testing.F) {
	f.Add(build(-1, fmtChunk(1, 1, 24000, 16, 2), chunk{"data", make([]byte, 10)}))
	f.Add(build(0xFFFFFFFF, extensible(2, 44100, 32, 3), chunk{"data", make([]byte, 17)}))
	f.Add(build(-1, chunk{"LIST", []byte("x")}, fmtChunk(3, 1, 8000, 64, 8), chunk{"data", nil}))
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := Parse(b)
		if err != nil {
			for _, e := range []error{ErrShortHeader, ErrNotWAV, ErrBadFormat, ErrUnsupported} {
				if errors.Is(err, e) {
					return
				}
			}
			t.Fatalf("foreign error %v", err)
		}
		if in.DataOffset > len(b) || in.DataBytes > int64(len(b)-in.DataOffset) || in.DataBytes < 0 {
			t.Fatalf("counted %d bytes from %d in %d", in.DataBytes, in.DataOffset, len(b))
		}
		if in.Frames*int64(in.FrameSize())+in.Extra != in.DataBytes || in.Extra < 0 {
			t.Fatalf("frames %d extra %d bytes %d", in.Frames, in.Extra, in.DataBytes)
		}
		var s Stream
		s.Add(b[:len(b)/2])
		s.Add(b[len(b)/2:])
		if got, ok := s.Info(); !ok || got.DataBytes != in.DataBytes {
			t.Fatalf("stream disagrees: %+v vs %+v", got, in)
		}
	})
}
