package wav

import (
	"errors"
	"fmt"
)

// MaxHeader bounds the header bytes Stream buffers before the data chunk starts.
const MaxHeader = 4096

// Stream counts the audio of a WAV that arrives in pieces, as vLLM-Omni's raw speech
// stream sends it: one header (sizes 0xFFFFFFFF), then sample bytes. Only the header is
// buffered. The zero value is ready to use.
type Stream struct {
	head  []byte
	h     Header
	ready bool
	n     int64
}

// Add takes the next piece and returns how many of its bytes are samples (0 while the
// header is still incomplete).
func (s *Stream) Add(p []byte) (int, error) {
	if s.ready {
		s.n += int64(len(p))
		return len(p), nil
	}
	s.head = append(s.head, p...)
	h, err := ParseHeader(s.head)
	if errors.Is(err, ErrShortHeader) {
		if len(s.head) > MaxHeader {
			return 0, fmt.Errorf("%w: no data chunk in the first %d bytes", ErrBadFormat, MaxHeader)
		}
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	s.h, s.ready = h, true
	pcm := len(s.head) - h.DataOffset
	s.n, s.head = int64(pcm), nil
	return pcm, nil
}

// Info reports the header and the samples so far; ok is false until the header is whole.
func (s *Stream) Info() (info Info, ok bool) {
	if !s.ready {
		return Info{}, false
	}
	return s.h.Info(s.n), true
}

// Pending reports the header bytes buffered while the header is incomplete.
func (s *Stream) Pending() int { return len(s.head) }
