package omni

import "testing"

// FuzzRealtimeTurnAudio: any turn audio is refused with an error or gives whole PCM16
// frames at a positive rate, inside the bytes given.
func FuzzRealtimeTurnAudio(f *testing.F) {
	f.Add(wavPCM16(16000, 4), 16000)
	f.Add([]byte{1, 2, 3}, 24000)
	f.Add([]byte("RIFF\xff\xff\xff\xffWAVEfmt "), 16000)
	f.Fuzz(func(t *testing.T, audio []byte, rate int) {
		if rate < 1 {
			return
		}
		turn, err := parseTurn(map[string]any{"audio": binary(audio)}, rate, false)
		if err != nil {
			return
		}
		fs := turn.Format.FrameSize()
		if fs <= 0 || turn.Format.SampleRate <= 0 || len(turn.Audio)%fs != 0 || len(turn.Audio) == 0 || len(turn.Audio) > len(audio) {
			t.Fatalf("%d bytes of audio, frame %d, rate %d, from %d bytes", len(turn.Audio), fs, turn.Format.SampleRate, len(audio))
		}
	})
}

// wavPCM16 is a mono PCM16 WAV of n samples.
func wavPCM16(rate, n int) []byte {
	b := []byte("RIFF\x00\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00")
	le := func(v, size int) {
		for i := range size {
			b = append(b, byte(v>>(8*i)))
		}
	}
	le(rate, 4)
	le(2*rate, 4)
	le(2, 2)
	le(16, 2)
	b = append(b, "data"...)
	le(2*n, 4)
	return append(b, make([]byte, 2*n)...)
}
