package httpdebug

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"strings"
	"sync"
	"unicode/utf8"
)

// capture keeps the first BodyLimit bytes of a body as it is read and counts the rest.
// The transport reads a request body on its own goroutine while RoundTrip prints it,
// hence the lock. onEnd, when set, runs once at EOF, a read error or Close.
type capture struct {
	io.ReadCloser
	contentType string
	onEnd       func(*capture)

	mu    sync.Mutex
	head  []byte
	total int64
	ended bool
}

func (c *capture) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.mu.Lock()
	if room := BodyLimit - len(c.head); room > 0 {
		c.head = append(c.head, p[:min(n, room)]...)
	}
	c.total += int64(n)
	c.mu.Unlock()
	if err != nil {
		c.end()
	}
	return n, err
}

func (c *capture) Close() error {
	err := c.ReadCloser.Close()
	c.end()
	return err
}

func (c *capture) end() {
	c.mu.Lock()
	first := !c.ended
	c.ended = true
	c.mu.Unlock()
	if first && c.onEnd != nil {
		c.onEnd(c)
	}
}

// describe prints the captured body: text as is up to BodyLimit, binary as a summary;
// none is what to say when no byte went through.
func (c *capture) describe(b *strings.Builder, none string) {
	c.mu.Lock()
	head, total := c.head, c.total
	c.mu.Unlock()
	switch {
	case total == 0:
		fmt.Fprintf(b, "[%s]\n\n", none)
	case isBinary(head, c.contentType):
		fmt.Fprintf(b, "[binary body: %d bytes, %s]\n\n", total, orUnknown(c.contentType))
	default:
		b.Write(head)
		if !bytes.HasSuffix(head, []byte("\n")) {
			b.WriteByte('\n')
		}
		if more := total - int64(len(head)); more > 0 {
			fmt.Fprintf(b, "[… %d more bytes not shown, %d in all]\n", more, total)
		}
		b.WriteByte('\n')
	}
}

// isBinary: media that is binary by type, or bytes that are not UTF-8 text (a rune cut
// at the capture's end does not count).
func isBinary(head []byte, contentType string) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	for _, p := range []string{"image/", "audio/", "video/", "application/octet-stream", "application/zip", "application/gzip", "application/pdf"} {
		if strings.HasPrefix(mt, p) {
			return true
		}
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	for cut := 0; cut < utf8.UTFMax && cut <= len(head); cut++ {
		if utf8.Valid(head[:len(head)-cut]) {
			return false
		}
	}
	return true
}

func orUnknown(ct string) string {
	if ct == "" {
		return "no Content-Type"
	}
	return ct
}
