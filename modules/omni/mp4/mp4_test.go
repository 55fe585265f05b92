package mp4

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// box is an ISO BMFF box of typ holding parts.
func box(typ string, parts ...[]byte) []byte {
	body := bytes.Join(parts, nil)
	return append(binary.BigEndian.AppendUint32(nil, uint32(8+len(body))), append([]byte(typ), body...)...)
}

func u32(vs ...uint32) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.BigEndian.AppendUint32(b, v)
	}
	return b
}

// mvhd0 is a version-0 movie header: flags, two times, timescale, duration (the rest of
// the real box is not read).
func mvhd0(scale, dur uint32) []byte { return box("mvhd", u32(0, 0, 0, scale, dur)) }

// trak is a track with a handler and an stsz of samples.
func trak(handler string, samples uint32) []byte {
	return box("trak", box("mdia", box("hdlr", u32(0, 0), []byte(handler)),
		box("minf", box("stbl", box("stsz", u32(0, 0, samples))))))
}

func TestScan(t *testing.T) {
	t.Parallel()
	ftyp := box("ftyp", []byte("isom\x00\x00\x02\x00isommp41"))
	mdat := box("mdat", make([]byte, 1000))
	mvhd1 := box("mvhd", []byte{1, 0, 0, 0}, make([]byte, 16), u32(600), binary.BigEndian.AppendUint64(nil, 1800))
	large := append(u32(1), []byte("mdat")...)
	large = append(binary.BigEndian.AppendUint64(large, 16+5), make([]byte, 5)...)
	tests := []struct {
		name string
		file []byte
		want Info
		err  error
	}{
		{"moov after mdat", bytes.Join([][]byte{ftyp, mdat, box("moov", mvhd0(1000, 2062), trak("soun", 99), trak("vide", 33))}, nil), Info{2.062, 33}, nil},
		{"faststart, version 1 header", bytes.Join([][]byte{ftyp, box("moov", mvhd1, trak("vide", 48)), mdat}, nil), Info{3, 48}, nil},
		{"64-bit box size", bytes.Join([][]byte{ftyp, large, box("moov", mvhd0(24, 48))}, nil), Info{2, 0}, nil},
		{"no moov", bytes.Join([][]byte{ftyp, mdat}, nil), Info{}, nil},
		{"cut inside mdat", bytes.Join([][]byte{ftyp, box("moov", mvhd0(1, 4)), mdat[:500]}, nil), Info{4, 0}, ErrNotMP4},
		{"not boxes", []byte("<html>not a video</html>"), Info{}, ErrNotMP4},
		{"empty", nil, Info{}, nil},
		// Past 1 MiB a moov is skipped, not held: headers are kilobytes.
		{"moov over 1 MiB", bytes.Join([][]byte{ftyp, box("moov", mvhd0(1, 4), box("free", make([]byte, 1<<20)))}, nil), Info{}, nil},
		{"moov just under 1 MiB", bytes.Join([][]byte{ftyp, box("moov", mvhd0(1, 4), box("free", make([]byte, 1<<20-64)))}, nil), Info{4, 0}, nil},
	}
	for _, tt := range tests {
		got, err := Scan(iotest.HalfReader(bytes.NewReader(tt.file)))
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("%s: %+v %v, want %+v %v", tt.name, got, err, tt.want, tt.err)
		}
	}
}

// Scan reads every byte, boxes or not, and returns a reader's own error as is: a body
// cut short of its Content-Length must stay that, not become "not an MP4".
func TestScanConsumesAllAndKeepsReadErrors(t *testing.T) {
	t.Parallel()
	r := bytes.NewReader(append([]byte("garbage!"), make([]byte, 100)...))
	if _, err := Scan(r); !errors.Is(err, ErrNotMP4) || r.Len() != 0 {
		t.Errorf("err %v, %d bytes left", err, r.Len())
	}
	cut := io.MultiReader(bytes.NewReader(box("mdat", make([]byte, 64))[:40]), iotest.ErrReader(io.ErrUnexpectedEOF))
	if _, err := Scan(cut); err != io.ErrUnexpectedEOF {
		t.Errorf("a failed read gave %v", err)
	}
}

// FuzzScan: any bytes give an Info with sane numbers and ErrNotMP4 or nil, and are all
// read.
func FuzzScan(f *testing.F) {
	f.Add(bytes.Join([][]byte{box("ftyp", []byte("isom")), box("moov", mvhd0(1000, 2000), trak("vide", 33)), box("mdat", make([]byte, 8))}, nil))
	f.Add(box("moov", box("trak", box("mdia", box("hdlr", u32(0, 0), []byte("vide"))))))
	f.Add(append(u32(1), []byte("moov\xff\xff\xff\xff\xff\xff\xff\xff")...))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		info, err := Scan(r)
		if err != nil && !errors.Is(err, ErrNotMP4) {
			t.Fatalf("foreign error %v", err)
		}
		if r.Len() != 0 || info.Frames < 0 || info.Seconds < 0 || info.Seconds != info.Seconds {
			t.Fatalf("%+v, %d bytes left", info, r.Len())
		}
	})
}
