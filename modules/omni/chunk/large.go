package chunk

import "bytes"

// largeString is the length from which a string value is cut out of the JSON before
// encoding/json sees it. The scanner walks base64 audio and images at ~4 ns a byte; finding
// the closing quote with IndexByte costs a small fraction of that. Cut strings are not
// checked for raw control characters, which encoding/json would reject.
const largeString = 1024

// placeholder stands in for a cut string; a restored field is recognised by aliasing the
// placeholder's position in the scratch copy, so a genuine "~" elsewhere is never confused.
const placeholder = '~'

// span is a large string value: its bytes in the input and its placeholder's position
// in the scratch copy.
type span struct {
	val []byte
	at  int
}

// cutLarge copies b into scratch with each large, escape-free string value replaced by a
// one-byte placeholder, and returns the copy and the cut values. It returns no spans when
// nothing is large.
func cutLarge(b, scratch []byte, spans []span) ([]byte, []span) {
	spans = spans[:0]
	out := scratch[:0]
	from, open := 0, -1
	for i := 0; i < len(b); {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			break
		}
		q := i + j
		i = q + 1
		if open < 0 {
			open = q + 1
			continue
		}
		if escaped(b, open, q) {
			continue
		}
		if val := b[open:q]; len(val) >= largeString && bytes.IndexByte(val, '\\') < 0 {
			out = append(out, b[from:open]...)
			spans = append(spans, span{val: val, at: len(out)})
			out = append(out, placeholder)
			from = q
		}
		open = -1
	}
	if len(spans) == 0 {
		return scratch, spans
	}
	return append(out, b[from:]...), spans
}

// escaped reports whether the quote at q, inside a string opened at open, is escaped: an
// odd run of backslashes precedes it.
func escaped(b []byte, open, q int) bool {
	k := q
	for k > open && b[k-1] == '\\' {
		k--
	}
	return (q-k)%2 == 1
}

// restore puts the cut values back into the fields that received placeholders and
// reports whether every one found its field.
func (c *Chunk) restore(cut []byte, spans []span) bool {
	n := 0
	fix := func(s *String) {
		if len(*s) != 1 {
			return
		}
		for _, sp := range spans {
			if &(*s)[0] == &cut[sp.at] {
				*s, n = sp.val, n+1
				return
			}
		}
	}
	fix(&c.Audio)
	fix(&c.Delta)
	for i := range c.Choices {
		for _, m := range []*Message{&c.Choices[i].Delta, &c.Choices[i].Message} {
			fix(&m.Content.Text)
			for k := range m.Content.Parts {
				fix(&m.Content.Parts[k].ImageURL.URL)
				fix(&m.Content.Parts[k].Text)
			}
			if m.Audio != nil {
				fix(&m.Audio.Data)
				fix(&m.Audio.Transcript)
			}
		}
	}
	for i := range c.Data {
		fix(&c.Data[i].B64JSON)
		fix(&c.Data[i].URL)
	}
	return n == len(spans)
}
