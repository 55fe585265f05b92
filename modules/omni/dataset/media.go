package dataset

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // DecodeConfig learns GIF and JPEG sizes
	_ "image/jpeg"
	"image/png"
	"math"
	"math/rand/v2"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// syntheticImage is a W×H PNG of random opaque pixels, like vLLM's random-mm: unique per
// item, so a server's multimodal cache never serves one, and as large as an image of that
// size gets. Random pixels do not compress, so zlib's search is skipped.
func syntheticImage(w, h int, seed uint64) *Media {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(seed, streamMedia))
	for i := 0; i < len(img.Pix); i += 4 {
		v := r.Uint32()
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = byte(v), byte(v>>8), byte(v>>16), 0xff
	}
	var b bytes.Buffer
	b.Grow(len(img.Pix)*3/4 + 1024)
	enc := png.Encoder{CompressionLevel: png.NoCompression}
	if err := enc.Encode(&b, img); err != nil {
		panic(err) // writing to memory cannot fail
	}
	return &Media{MIME: "image/png", Data: b.Bytes(), Width: w, Height: h}
}

// syntheticAudio is a WAV (PCM16) of a sine tone at half scale, its pitch (220–2000 Hz)
// from the seed: a real signal an audio encoder can work on, distinct per item.
func syntheticAudio(seconds, channels, rate int, seed uint64) *Media {
	frames := seconds * rate
	hz := 220 + float64(seed%1781)
	data := wavHeader(frames, channels, rate)
	for i := range frames {
		v := int16(0.5 * math.MaxInt16 * math.Sin(2*math.Pi*hz*float64(i)/float64(rate)))
		for range channels {
			data = binary.LittleEndian.AppendUint16(data, uint16(v))
		}
	}
	return &Media{MIME: "audio/wav", Data: data, SampleRate: rate, Channels: channels,
		Duration: time.Duration(seconds) * time.Second}
}

// wavHeader is the 44-byte header of a PCM16 WAV, with room for its samples.
func wavHeader(frames, channels, rate int) []byte {
	size := frames * channels * 2
	b := make([]byte, 0, 44+size)
	le := binary.LittleEndian
	b = append(b, "RIFF"...)
	b = le.AppendUint32(b, uint32(36+size))
	b = append(b, "WAVEfmt "...)
	b = le.AppendUint32(b, 16)
	b = le.AppendUint16(b, 1) // PCM
	b = le.AppendUint16(b, uint16(channels))
	b = le.AppendUint32(b, uint32(rate))
	b = le.AppendUint32(b, uint32(rate*channels*2))
	b = le.AppendUint16(b, uint16(channels*2))
	b = le.AppendUint16(b, 16)
	b = append(b, "data"...)
	return le.AppendUint32(b, uint32(size))
}

// wavInfo reads a WAV's rate, channels and duration from its header; ok is false when
// data is not a WAV it understands.
func wavInfo(data []byte) (rate, channels int, d time.Duration, ok bool) {
	if len(data) < 12 || string(data[:4]) != "RIFF" || string(data[8:12]) != "WAVE" {
		return 0, 0, 0, false
	}
	le := binary.LittleEndian
	align := 0
	for p := 12; p+8 <= len(data); {
		id, n := string(data[p:p+4]), int64(le.Uint32(data[p+4:]))
		body := data[p+8:]
		switch {
		case id == "fmt " && len(body) >= 16:
			channels, rate, align = int(le.Uint16(body[2:])), int(le.Uint32(body[4:])), int(le.Uint16(body[12:]))
		case id == "data" && rate > 0 && align > 0:
			// Streamed WAVs leave the size at 0xFFFFFFFF: count what is there.
			n = min(n, int64(len(body)))
			return rate, channels, time.Duration(n / int64(align) * int64(time.Second) / int64(rate)), true
		}
		p += 8 + int(min(n+n%2, int64(len(data))))
	}
	return 0, 0, 0, false
}

// mediaLoader resolves the image and audio references of one dataset file. A file named
// by many lines is read once and its Media shared.
type mediaLoader struct {
	dir   string
	files map[string]*Media
}

func newMediaLoader(datasetPath string) *mediaLoader {
	return &mediaLoader{dir: filepath.Dir(datasetPath), files: map[string]*Media{}}
}

// load resolves ref, of kind "image" or "audio": an http(s) URL is kept as a URL, a data
// URL is decoded, anything else is a file path, relative to the dataset file's directory.
func (l *mediaLoader) load(ref, kind string) (*Media, error) {
	switch {
	case strings.HasPrefix(ref, "http://") || strings.HasPrefix(ref, "https://"):
		return &Media{URL: ref, MIME: mime.TypeByExtension(filepath.Ext(strings.SplitN(ref, "?", 2)[0]))}, nil
	case strings.HasPrefix(ref, "data:"):
		data, err := decodeDataURL(ref)
		if err != nil {
			return nil, err
		}
		return describe(data, kind, "")
	}
	path := strings.TrimPrefix(ref, "file://")
	if !filepath.IsAbs(path) {
		path = filepath.Join(l.dir, path)
	}
	if m, ok := l.files[path]; ok {
		return m, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := describe(data, kind, mime.TypeByExtension(filepath.Ext(path)))
	if err != nil {
		return nil, err
	}
	l.files[path] = m
	return m, nil
}

// decodeDataURL returns the bytes of a base64 data URL ("data:image/png;base64,…").
func decodeDataURL(ref string) ([]byte, error) {
	head, payload, ok := strings.Cut(ref, ",")
	if !ok || !strings.HasSuffix(head, ";base64") {
		return nil, errors.New("data URL is not base64 (want data:<type>;base64,<data>)")
	}
	data, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		return nil, fmt.Errorf("data URL: %w", err)
	}
	return data, nil
}

// describe makes the Media of inline bytes, checking they are of the kind the field says.
// byExt is the MIME type the file name suggests, for formats content sniffing misses.
func describe(data []byte, kind, byExt string) (*Media, error) {
	m := &Media{Data: data, MIME: http.DetectContentType(data)}
	ogg := kind == "audio" && m.MIME == "application/ogg"
	if !strings.HasPrefix(m.MIME, kind+"/") && !ogg {
		if !strings.HasPrefix(byExt, kind+"/") {
			return nil, fmt.Errorf("content is %s, not %s", m.MIME, kind)
		}
		m.MIME = byExt
	}
	if kind == "image" {
		if c, _, err := image.DecodeConfig(bytes.NewReader(data)); err == nil {
			m.Width, m.Height = c.Width, c.Height
		}
		return m, nil
	}
	if rate, ch, d, ok := wavInfo(data); ok {
		m.MIME, m.SampleRate, m.Channels, m.Duration = "audio/wav", rate, ch, d
	}
	return m, nil
}
