package hostile

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/png"
	"math"
)

// pngImage is the image every image response carries.
var pngImage = func() []byte {
	var b bytes.Buffer
	img := image.NewGray(image.Rect(0, 0, imageW, imageH))
	for i := range img.Pix {
		img.Pix[i] = uint8(i)
	}
	png.Encode(&b, img)
	return b.Bytes()
}()

// pcm is the i-th 0.1 s piece of a 440 Hz tone.
func pcm(i int) []byte {
	out := make([]byte, 2*pieceFrames)
	for k := range pieceFrames {
		x := float64(i*pieceFrames+k) / sampleRate
		binary.LittleEndian.PutUint16(out[2*k:], uint16(int16(0.3*math.MaxInt16*math.Sin(2*math.Pi*440*x))))
	}
	return out
}

// wavHeader is the canonical 44-byte PCM16 mono header for dataBytes of samples;
// 0xFFFFFFFF is vLLM-Omni's placeholder for a stream of unknown length. (mock/ and
// modules/omni/dataset write the same header: modules/omni/wav has no writer to share.)
func wavHeader(dataBytes uint32) []byte {
	riff := dataBytes + 36
	if dataBytes == math.MaxUint32 {
		riff = math.MaxUint32
	}
	le := binary.LittleEndian
	h := le.AppendUint32([]byte("RIFF"), riff)
	h = le.AppendUint32(append(h, "WAVEfmt "...), 16)
	h = le.AppendUint16(le.AppendUint16(h, 1), 1) // PCM, mono
	h = le.AppendUint32(le.AppendUint32(h, sampleRate), 2*sampleRate)
	h = le.AppendUint16(le.AppendUint16(h, 2), 16) // block align, bits
	return le.AppendUint32(append(h, "data"...), dataBytes)
}

func wavFile(samples []byte) []byte { return append(wavHeader(uint32(len(samples))), samples...) }

// corruptWAV is a RIFF/WAVE header whose fmt chunk has 0 channels and 0 Hz, then samples.
func corruptWAV() []byte {
	w := wavFile(pcm(0))
	for i := 22; i < 36; i++ {
		w[i] = 0
	}
	return w
}
