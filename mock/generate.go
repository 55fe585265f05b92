package mock

import (
	"encoding/base64"
)

// generator hands out one request's deterministic content in order: text
// tokens, audio chunks with a continuous tone, images.
type generator struct {
	toks     []string
	pos      int
	seed     uint64
	voice    *tone
	pcmOnly  bool // OpenAI-style audio is raw PCM16
	format   string
	width    int
	height   int
	imageIdx int
}

func (j *chatJob) generator() *generator {
	return &generator{toks: j.toks, seed: j.seed, pcmOnly: j.s.cfg.OpenAIAudio, format: j.format,
		width: j.width, height: j.height}
}

// text returns the next k tokens joined.
func (g *generator) text(k int) string {
	end := min(g.pos+k, len(g.toks))
	var out string
	for _, t := range g.toks[g.pos:end] {
		out += t
	}
	g.pos = end
	return out
}

func (g *generator) tone(st Stage) *tone {
	if g.voice == nil {
		g.voice = newTone(st.SampleRate, g.seed)
	}
	return g.voice
}

// audio returns chunk i of n as sent in a chat stream: a complete WAV file
// or raw PCM, cut short when a truncated-wav fault targets it.
func (g *generator) audio(st Stage, f *Fault, i, n int) []byte {
	b := g.tone(st).next(st.AudioSecondsPerChunk)
	if g.format == "wav" && !g.pcmOnly {
		b = wavFile(st.SampleRate, b)
	}
	if truncatesAt(f, i, n) {
		b = truncateAudio(b)
	}
	return b
}

// imagePart is one image as a chat content part (a data URL).
func (g *generator) imagePart() map[string]any {
	g.imageIdx++
	png := renderPNG(g.width, g.height, g.seed+uint64(g.imageIdx))
	return map[string]any{"type": "image_url", "image_url": map[string]string{
		"url": "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)}}
}
