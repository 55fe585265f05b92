package sse

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// BenchmarkReaderChatChunk measures one typical 230-byte chat chunk.
func BenchmarkReaderChatChunk(b *testing.B) {
	ev := "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1760000000,\"model\":\"Qwen/Qwen3-Omni-30B-A3B-Instruct\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" hello\"},\"logprobs\":null,\"finish_reason\":null}],\"modality\":\"text\",\"metrics\":null}\n\n"
	stream := []byte(strings.Repeat(ev, 1000))
	src := bytes.NewReader(stream)
	b.SetBytes(int64(len(ev)))
	b.ReportAllocs()
	r := NewReader(src)
	for b.Loop() {
		if _, err := r.Next(); err != nil {
			src.Reset(stream)
			r = NewReader(src)
		}
	}
}

// BenchmarkReaderNamedEvent measures speech SSE events with `event:` lines.
func BenchmarkReaderNamedEvent(b *testing.B) {
	ev := "event: speech.audio.delta\ndata: {\"type\":\"speech.audio.delta\",\"audio\":\"" + strings.Repeat("A", 4000) + "\"}\n\n"
	stream := []byte(strings.Repeat(ev, 100))
	src := bytes.NewReader(stream)
	b.SetBytes(int64(len(ev)))
	b.ReportAllocs()
	r := NewReader(io.Reader(src))
	for b.Loop() {
		if _, err := r.Next(); err != nil {
			src.Reset(stream)
			r = NewReader(src)
		}
	}
}
