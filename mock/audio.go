package mock

import (
	"encoding/binary"
	"math"
)

// wavHeaderLen is the size of the canonical RIFF/fmt/data header vLLM-Omni writes.
const wavHeaderLen = 44

// wavHeader returns a PCM16 mono header for dataBytes of samples; pass
// 0xFFFFFFFF as dataBytes for the placeholder a raw stream starts with.
func wavHeader(rate int, dataBytes uint32) []byte {
	h := make([]byte, wavHeaderLen)
	riff := dataBytes + 36
	if dataBytes == 0xFFFFFFFF {
		// vLLM-Omni's streaming header sets both size fields to 0xFFFFFFFF.
		riff = 0xFFFFFFFF
	}
	copy(h[0:], "RIFF")
	binary.LittleEndian.PutUint32(h[4:], riff)
	copy(h[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(h[16:], 16)
	binary.LittleEndian.PutUint16(h[20:], 1) // PCM
	binary.LittleEndian.PutUint16(h[22:], 1) // mono
	binary.LittleEndian.PutUint32(h[24:], uint32(rate))
	binary.LittleEndian.PutUint32(h[28:], uint32(rate*2))
	binary.LittleEndian.PutUint16(h[32:], 2)
	binary.LittleEndian.PutUint16(h[34:], 16)
	copy(h[36:], "data")
	binary.LittleEndian.PutUint32(h[40:], dataBytes)
	return h
}

// wavFile is a complete file: header with correct sizes plus pcm.
func wavFile(rate int, pcm []byte) []byte {
	return append(wavHeader(rate, uint32(len(pcm))), pcm...)
}

// tone is a deterministic voice: a sine whose pitch comes from the request's
// seed, with a slow amplitude wobble so it sounds like syllables, not a beep.
type tone struct {
	rate   int
	freq   float64
	sample int // next sample index, so chunks join without clicks
}

func newTone(rate int, seed uint64) *tone {
	return &tone{rate: rate, freq: 180 + float64(seed%240)}
}

// next returns the PCM16 little-endian bytes of the next `seconds` of audio.
func (t *tone) next(seconds float64) []byte {
	n := int(math.Round(seconds * float64(t.rate)))
	out := make([]byte, 2*n)
	for i := range n {
		x := float64(t.sample+i) / float64(t.rate)
		env := 0.55 + 0.45*math.Sin(2*math.Pi*3.5*x)
		v := 0.3 * env * math.Sin(2*math.Pi*t.freq*x)
		binary.LittleEndian.PutUint16(out[2*i:], uint16(int16(v*math.MaxInt16)))
	}
	t.sample += n
	return out
}

// truncateAudio cuts a payload to half its length plus one byte, so a WAV's
// header claims more data than arrives and the PCM ends mid-sample.
func truncateAudio(b []byte) []byte {
	return b[:len(b)/2+1]
}
