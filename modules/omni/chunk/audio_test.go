package chunk

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"image"
	"image/png"
	"reflect"
	"testing"

	"github.com/omnik-dev/omnik/modules/omni/wav"
)

// wavFile builds a PCM16 WAV with an optional extra chunk before fmt and the given data
// size field (-1: the real size).
func wavFile(rate, channels int, pcm []byte, extra int, dataSize int64) []byte {
	var b bytes.Buffer
	le := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	le(uint32(36 + len(pcm)))
	b.WriteString("WAVE")
	if extra > 0 {
		b.WriteString("LIST")
		le(uint32(extra))
		b.Write(make([]byte, extra))
	}
	b.WriteString("fmt ")
	le(uint32(16))
	le(uint16(1))
	le(uint16(channels))
	le(uint32(rate))
	le(uint32(rate * channels * 2))
	le(uint16(channels * 2))
	le(uint16(16))
	b.WriteString("data")
	if dataSize < 0 {
		dataSize = int64(len(pcm))
	}
	le(uint32(dataSize))
	b.Write(pcm)
	return b.Bytes()
}

func b64(b []byte) []byte { return []byte(base64.StdEncoding.EncodeToString(b)) }

func TestDecodeAudio(t *testing.T) {
	t.Parallel()
	pcm := make([]byte, 9600)
	for i := range pcm {
		pcm[i] = byte(i)
	}
	raw := wav.PCM16(24000, 1)
	tests := []struct {
		name    string
		payload []byte
		spec    AudioSpec
		want    AudioPiece
		err     error
	}{
		{"chat wav chunk", b64(wavFile(24000, 1, pcm, 0, -1)), AudioSpec{Format: "wav"}, AudioPiece{Format: raw, WAV: true, Bytes: 9600, Frames: 4800}, nil},
		{"sniffed wav at 44.1k stereo", b64(wavFile(44100, 2, pcm, 0, -1)), AudioSpec{Raw: raw}, AudioPiece{Format: wav.PCM16(44100, 2), WAV: true, Bytes: 9600, Frames: 2400}, nil},
		{"placeholder size", b64(wavFile(24000, 1, pcm, 0, 0xFFFFFFFF)), AudioSpec{}, AudioPiece{Format: raw, WAV: true, Bytes: 9600, Frames: 4800}, nil},
		{"odd length wav", b64(wavFile(24000, 1, pcm[:9599], 0, -1)), AudioSpec{}, AudioPiece{Format: raw, WAV: true, Bytes: 9599, Frames: 4799}, nil},
		{"big chunk before fmt", b64(wavFile(24000, 1, pcm, 1000, -1)), AudioSpec{}, AudioPiece{Format: raw, WAV: true, Bytes: 9600, Frames: 4800}, nil},
		{"raw pcm", b64(pcm), AudioSpec{Format: "pcm", Raw: raw}, AudioPiece{Format: raw, Bytes: 9600, Frames: 4800}, nil},
		{"sniffed raw pcm", b64(pcm[:9598]), AudioSpec{Raw: raw}, AudioPiece{Format: raw, Bytes: 9598, Frames: 4799}, nil},
		{"mp3 counted in bytes", b64(pcm[:100]), AudioSpec{Format: "mp3"}, AudioPiece{Bytes: 100}, nil},
		{"empty segment", nil, AudioSpec{Format: "wav"}, AudioPiece{}, nil},
		{"wav requested, not wav", b64(pcm), AudioSpec{Format: "wav"}, AudioPiece{}, wav.ErrNotWAV},
		{"broken header", b64(wavFile(24000, 1, pcm, 0, -1)[:30]), AudioSpec{Format: "wav"}, AudioPiece{}, wav.ErrShortHeader},
		{"bad base64", []byte("UklG!!!!"), AudioSpec{}, AudioPiece{}, ErrBadBase64},
		{"bad length", []byte("UklGR"), AudioSpec{}, AudioPiece{}, ErrBadBase64},
	}
	for _, tc := range tests {
		for _, keep := range []bool{false, true} {
			spec := tc.spec
			spec.Keep = keep
			got, err := DecodeAudio(tc.payload, spec)
			if !errors.Is(err, tc.err) {
				t.Fatalf("%s keep=%v: err %v, want %v", tc.name, keep, err, tc.err)
			}
			samples := got.Samples
			got.Samples = nil
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("%s keep=%v: got %+v, want %+v", tc.name, keep, got, tc.want)
			}
			if keep && err == nil && tc.want.Bytes > 0 && (int64(len(samples)) != tc.want.Bytes || samples[1] != 1) {
				t.Fatalf("%s: kept %d bytes starting %v", tc.name, len(samples), samples[:min(4, len(samples))])
			}
			if !keep && samples != nil {
				t.Fatalf("%s: samples kept without asking", tc.name)
			}
		}
	}
}

func TestImageSize(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	png.Encode(&buf, image.NewGray(image.Rect(0, 0, 64, 48)))
	enc := b64(buf.Bytes())
	for _, src := range [][]byte{enc, append([]byte("data:image/png;base64,"), enc...), enc[:60]} {
		w, h, err := ImageSize(src)
		if err != nil || w != 64 || h != 48 {
			t.Fatalf("%.30s: %dx%d %v", src, w, h, err)
		}
	}
	if _, _, err := ImageSize([]byte("UklGRiQAAABXRUJQ")); err == nil {
		t.Fatal("webp/unknown accepted")
	}
}
