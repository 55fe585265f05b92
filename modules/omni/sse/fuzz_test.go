package sse

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzReader checks that any byte stream, however split, yields the same events as the
// whole stream, never panics, and respects the size bound.
func FuzzReader(f *testing.F) {
	for _, tc := range cases {
		f.Add([]byte(tc.stream), uint8(3))
	}
	f.Add([]byte("data: x\r"), uint8(1))
	f.Fuzz(func(t *testing.T, s []byte, split uint8) {
		const limit = 256
		whole, werr := readAll(NewReader(bytes.NewReader(s), WithMaxEventSize(limit)))
		i := int(split) % (len(s) + 1)
		src := io.MultiReader(bytes.NewReader(s[:i]), bytes.NewReader(s[i:]))
		parts, perr := readAll(NewReader(src, WithMaxEventSize(limit), WithBufferSize(16)))
		if len(whole) != len(parts) {
			t.Fatalf("whole gave %d events, split at %d gave %d", len(whole), i, len(parts))
		}
		for k := range whole {
			if whole[k].Name != parts[k].Name || !bytes.Equal(whole[k].Data, parts[k].Data) ||
				whole[k].Offset != parts[k].Offset || whole[k].ID != parts[k].ID {
				t.Fatalf("event %d differs: %+v vs %+v", k, whole[k], parts[k])
			}
			if len(whole[k].Data) > limit {
				t.Fatalf("event %d has %d bytes of data, limit %d", k, len(whole[k].Data), limit)
			}
		}
		if errors.Is(werr, ErrEventTooLarge) != errors.Is(perr, ErrEventTooLarge) ||
			errors.Is(werr, ErrNoDone) != errors.Is(perr, ErrNoDone) {
			t.Fatalf("errors differ: %v vs %v", werr, perr)
		}
	})
}
