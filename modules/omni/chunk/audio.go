package chunk

import (
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/omnik-dev/omnik/modules/omni/wav"
)

// ErrBadBase64 reports a payload that is not base64.
var ErrBadBase64 = errors.New("chunk: bad base64")

// AudioSpec says how to read an audio payload.
type AudioSpec struct {
	// Format is the requested response format: "wav" requires a RIFF header, "pcm" or
	// "pcm16" is raw samples in Raw's layout, "" sniffs for a RIFF header; others
	// (mp3, flac, opus) are only measured in bytes.
	Format string
	Raw    wav.Format // layout of raw PCM (rate and channels are not in the stream)
	Keep   bool       // return the decoded sample bytes too
}

// AudioPiece is what one audio payload (a standalone WAV or a PCM run) holds.
type AudioPiece struct {
	Format  wav.Format // zero for formats omnik cannot count
	WAV     bool       // the payload had a RIFF header
	Bytes   int64      // sample bytes (header excluded)
	Frames  int64
	Samples []byte // the sample bytes, only with AudioSpec.Keep
}

// Seconds is the playback time of the piece.
func (p AudioPiece) Seconds() float64 { return p.Format.Seconds(p.Frames) }

// headProbe is the first base64 prefix decoded to find a WAV header (96 bytes: a 44-byte
// header with room for a small extra chunk).
const headProbe = 128

// DecodeAudio measures a base64 audio payload. Unless spec.Keep, it decodes only the
// header, since the sample count follows from the encoded length; the rest of the payload
// is then not checked for valid base64.
func DecodeAudio(b64 []byte, spec AudioSpec) (AudioPiece, error) {
	n, err := decodedLen(b64)
	if err != nil || n == 0 {
		return AudioPiece{}, err
	}
	var full []byte
	if spec.Keep {
		full = make([]byte, base64.StdEncoding.DecodedLen(len(b64)))
		m, err := base64.StdEncoding.Decode(full, b64)
		if err != nil {
			return AudioPiece{}, fmt.Errorf("%w: %v", ErrBadBase64, err)
		}
		full, n = full[:m], m
	}
	raw := AudioPiece{Format: spec.Raw, Bytes: int64(n), Frames: spec.Raw.Frames(int64(n)), Samples: full}
	switch spec.Format {
	case "pcm", "pcm16":
		return raw, nil
	case "", "wav":
	default:
		return AudioPiece{Bytes: int64(n), Samples: full}, nil
	}
	h, err := header(b64, full)
	if errors.Is(err, wav.ErrNotWAV) && spec.Format == "" {
		return raw, nil
	}
	if err != nil {
		return AudioPiece{}, err
	}
	in := h.Info(int64(n - h.DataOffset))
	p := AudioPiece{Format: h.Format, WAV: true, Bytes: in.DataBytes, Frames: in.Frames}
	if full != nil {
		p.Samples = full[h.DataOffset : int64(h.DataOffset)+in.DataBytes]
	}
	return p, nil
}

// header parses the WAV header from full when decoded, else from a prefix of b64 that
// grows while the header (LIST or other chunks before data) needs more.
func header(b64, full []byte) (wav.Header, error) {
	if full != nil {
		return wav.ParseHeader(full)
	}
	for probe := headProbe; ; probe *= 2 {
		head, err := decodePrefix(b64, probe)
		if err != nil {
			return wav.Header{}, err
		}
		h, err := wav.ParseHeader(head)
		if errors.Is(err, wav.ErrShortHeader) && probe < len(b64) {
			continue
		}
		return h, err
	}
}

// decodedLen is the decoded size of padded standard base64.
func decodedLen(b64 []byte) (int, error) {
	if len(b64)%4 != 0 {
		return 0, fmt.Errorf("%w: length %d is not a multiple of 4", ErrBadBase64, len(b64))
	}
	n := len(b64) / 4 * 3
	for i := len(b64) - 1; i >= 0 && i >= len(b64)-2 && b64[i] == '='; i-- {
		n--
	}
	return n, nil
}

func decodePrefix(b64 []byte, chars int) ([]byte, error) {
	src := b64[:min(len(b64), chars)]
	out := make([]byte, base64.StdEncoding.DecodedLen(len(src)))
	m, err := base64.StdEncoding.Decode(out, src)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadBase64, err)
	}
	return out[:m], nil
}
