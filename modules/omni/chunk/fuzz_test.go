package chunk

import (
	"bytes"
	"encoding/base64"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/omnik-dev/omnik/modules/omni/wav"
)

// FuzzDecode checks that no body panics the decoder and every failure is ErrMalformed.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{omniRole, omniText, omniAudio, omniImage, omniFinal, omniBare, omniStats, oaiAudio,
		`{"error":"x"}`, `{"detail":[1,2]}`, `{"data":[{"b64_json":"a\u0041"}]}`} {
		f.Add([]byte(s))
	}
	big := strings.Repeat("QUJD", 300)
	f.Add([]byte(`{"choices":[{"delta":{"content":"` + big + `"}}],"x":"a\\"}`))
	f.Add([]byte(`{"data":[{"b64_json":"` + big + `"}],"metrics":{"stage_metrics":{"0":{"a":1}}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var c Chunk
		err := Decode(b, &c)
		if err != nil && !errors.Is(err, ErrMalformed) {
			t.Fatalf("foreign error %v", err)
		}
		// The fast paths (large strings cut out, repeated stage metrics) must agree with
		// encoding/json alone, also on a second decode into the same Chunk.
		want, werr := slow(t, b)
		if err == nil && werr != nil && bytes.ContainsFunc(b, func(r rune) bool { return r < 0x20 }) {
			return // cut strings are not checked for control characters, by design
		}
		if (err == nil) != (werr == nil) || (err == nil && !reflect.DeepEqual(public(c), want)) {
			t.Fatalf("fast path differs: %v vs %v", err, werr)
		}
		if err := Decode(b, &c); (err == nil) != (werr == nil) || (err == nil && !reflect.DeepEqual(public(c), want)) {
			t.Fatalf("second decode differs: %v vs %v", err, werr)
		}
	})
}

// FuzzDecodeAudio checks that no payload panics and counts stay within the payload.
func FuzzDecodeAudio(f *testing.F) {
	f.Add(b64(wavFile(24000, 1, make([]byte, 20), 0, -1)), "")
	f.Add(b64(wavFile(24000, 2, make([]byte, 20), 300, 0xFFFFFFFF)), "wav")
	f.Add([]byte("AAAA"), "pcm")
	f.Fuzz(func(t *testing.T, payload []byte, format string) {
		for _, keep := range []bool{false, true} {
			p, err := DecodeAudio(payload, AudioSpec{Format: format, Raw: wav.PCM16(24000, 1), Keep: keep})
			if err != nil {
				continue
			}
			if p.Bytes < 0 || p.Bytes > int64(len(payload)) || p.Frames < 0 || (keep && int64(len(p.Samples)) != p.Bytes) {
				t.Fatalf("piece %+v from %d base64 chars", p, len(payload))
			}
		}
	})
}

// CheckBase64 accepts exactly what the standard decoders read, padded or not.
func FuzzCheckBase64(f *testing.F) {
	for _, s := range []string{"", "QQ==", "QQ", "QUJD", "Q", "QQ=", "QQ==QQ==", "Q\r\nQ==", "Q=Q=", "!!!!", "data:image/png;base64,QUJD"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		_, padded := base64.StdEncoding.DecodeString(string(inline(src)))
		_, raw := base64.RawStdEncoding.DecodeString(string(inline(src)))
		if got, want := CheckBase64(src) == nil, padded == nil || raw == nil; got != want {
			t.Fatalf("CheckBase64(%q) valid %v, decoders %v / %v", src, got, padded, raw)
		}
	})
}
