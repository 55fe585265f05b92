package mock

// Errors here become response messages, worded as vLLM-Omni words them.
//lint:file-ignore ST1005 error texts are response messages sent verbatim

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strconv"
	"strings"
	"sync"
)

const (
	defaultImageSize = "512x512"
	// maxImageSide bounds the PNGs the simulator encodes; larger requests
	// are rejected rather than letting a load test spend its CPU on pixels.
	maxImageSide = 2048
	// imageVariants is how many distinct pictures exist per size, so the
	// encoded PNGs can be cached and shared across requests.
	imageVariants = 8
	maxCachedPNGs = 64
)

// parseSize reads "WxH" as vLLM-Omni does, within the simulator's bound.
func parseSize(s string) (int, int, error) {
	ws, hs, ok := strings.Cut(strings.ToLower(s), "x")
	w, errW := strconv.Atoi(ws)
	h, errH := strconv.Atoi(hs)
	if !ok || errW != nil || errH != nil || w <= 0 || h <= 0 {
		return 0, 0, fmt.Errorf("Invalid size format: '%s'. Expected format: 'WIDTHxHEIGHT' (e.g., '1024x1024').", s)
	}
	if w > maxImageSide || h > maxImageSide {
		return 0, 0, fmt.Errorf("Invalid size: '%s'. The simulator renders at most %dx%d.", s, maxImageSide, maxImageSide)
	}
	return w, h, nil
}

type pngKey struct{ w, h, variant int }

var pngCache struct {
	sync.Mutex
	m map[pngKey][]byte
}

// renderPNG returns a real PNG of w×h: diagonal colour bands on a palette
// picked by variant. Paletted images encode fast, and results are cached.
func renderPNG(w, h int, variant uint64) []byte {
	key := pngKey{w, h, int(variant % imageVariants)}
	pngCache.Lock()
	b, ok := pngCache.m[key]
	pngCache.Unlock()
	if ok {
		return b
	}
	pal := make(color.Palette, 16)
	for i := range pal {
		v := uint8(i * 16)
		switch key.variant % 3 {
		case 0:
			pal[i] = color.RGBA{v, 96 + v/2, 255 - v, 255}
		case 1:
			pal[i] = color.RGBA{255 - v, v, 128, 255}
		default:
			pal[i] = color.RGBA{v / 2, 200 - v/2, v, 255}
		}
	}
	img := image.NewPaletted(image.Rect(0, 0, w, h), pal)
	band := max((w+h)/24, 1)
	for y := range h {
		for x := range w {
			img.Pix[y*img.Stride+x] = uint8(((x+y)/band + key.variant) % 16)
		}
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	_ = enc.Encode(&buf, img)
	b = buf.Bytes()
	pngCache.Lock()
	if pngCache.m == nil {
		pngCache.m = map[pngKey][]byte{}
	}
	if len(pngCache.m) < maxCachedPNGs {
		pngCache.m[key] = b
	}
	pngCache.Unlock()
	return b
}
