package chunk

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// maxSkipDepth bounds the nesting of skipped values; deeper input takes the slow path.
const maxSkipDepth = 64

// scanner walks one JSON document. bad is sticky: once set, the result is discarded.
type scanner struct {
	b   []byte
	i   int
	bad bool
	// cutLarge lifts strings of largeString bytes or more out, and the old path trusts
	// them unchecked only when every one lands in a String field.
	unchecked bool // a large String value was kept without looking for control characters
	strict    bool // a large string sat elsewhere
}

// peek is the byte at s.i, or 0 at the end (never valid where peek is used).
func (s *scanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) ws() {
	for s.i < len(s.b) && s.b[s.i] <= ' ' {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// eat consumes c after optional whitespace.
func (s *scanner) eat(c byte) bool {
	s.ws()
	if s.peek() == c {
		s.i++
		return true
	}
	return false
}

// member starts the next member of an object whose '{' is read: it reads the key and
// the colon, leaving s at the value, or reads the closing '}' and returns false. Keys
// are kept only when they are ASCII without escapes, so they match as bytes.
func (s *scanner) member(first bool) ([]byte, bool) {
	if !s.next(first, '}') {
		return nil, false
	}
	if s.peek() != '"' {
		s.bad = true
		return nil, false
	}
	b, from := s.b, s.i+1
	j := from
	for j < len(b) && plain[b[j]] {
		j++
	}
	if j == len(b) || b[j] != '"' {
		s.bad = true
		return nil, false
	}
	k := b[from:j]
	s.i = j + 1
	if len(k) >= largeString {
		s.strict = true
	}
	if !s.eat(':') {
		s.bad = true
		return nil, false
	}
	s.ws()
	return k, true
}

// element starts the next element of an array whose '[' is read, leaving s at the
// value, or reads the closing ']' and returns false.
func (s *scanner) element(first bool) bool { return s.next(first, ']') }

// next reads what follows '{' or '[' (first) or a member or element: the separator
// before the next one, or the closing byte, when it returns false.
func (s *scanner) next(first bool, close byte) bool {
	if s.bad {
		return false
	}
	s.ws()
	switch c := s.peek(); {
	case c == close:
		s.i++
		return false
	case first:
	case c == ',':
		s.i++
		s.ws()
	default:
		s.bad = true
		return false
	}
	return true
}

// skip validates one value, as fully as encoding/json would, and steps over it.
func (s *scanner) skip(depth int) {
	if s.bad {
		return
	}
	switch c := s.peek(); c {
	case '{', '[':
		if depth >= maxSkipDepth {
			s.bad = true
			return
		}
		close := byte(']')
		if c == '{' {
			close = '}'
		}
		s.i++
		for n := 0; s.next(n == 0, close); n++ {
			if c == '{' {
				if s.peek() != '"' {
					s.bad = true
					return
				}
				s.skipString()
				if !s.eat(':') {
					s.bad = true
					return
				}
				s.ws()
			}
			s.skip(depth + 1)
		}
	case '"':
		s.skipString()
	case 't':
		s.literal("true")
	case 'f':
		s.literal("false")
	case 'n':
		s.literal("null")
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		s.skipNumber()
	default:
		s.bad = true
	}
}

// skipString steps over the string at s.i, checking its escapes and control bytes (not
// its UTF-8: encoding/json's scanner does not either).
func (s *scanner) skipString() {
	b, from := s.b, s.i+1
	escaped := false
	for j := from; j < len(b); j++ {
		for j < len(b) && skippable[b[j]] {
			j++
		}
		if j == len(b) {
			break
		}
		switch c := b[j]; {
		case c == '"':
			if j-from >= largeString && !escaped {
				s.strict = true
			}
			s.i = j + 1
			return
		case c == '\\':
			escaped = true
			j++
			if j >= len(b) {
				s.bad = true
				return
			}
			switch b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(b) || !hex(b[j+1]) || !hex(b[j+2]) || !hex(b[j+3]) || !hex(b[j+4]) {
					s.bad = true
					return
				}
				j += 4
			default:
				s.bad = true
				return
			}
		case c < 0x20:
			s.bad = true
			return
		}
	}
	s.bad = true
}

// plain marks the bytes a kept string may hold that need no second look: printable
// ASCII but the quote and the backslash. skippable adds the bytes from 0x80, which a
// skipped string may hold whatever their UTF-8, as encoding/json's scanner does not look.
var plain, skippable = func() (p, s [256]bool) {
	for c := 0x20; c < 256; c++ {
		s[c] = c != '"' && c != '\\'
		p[c] = s[c] && c < utf8.RuneSelf
	}
	return p, s
}()

func hex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// skipNumber steps over a JSON number of any form.
func (s *scanner) skipNumber() {
	if s.peek() == '-' {
		s.i++
	}
	switch c := s.peek(); {
	case c == '0':
		s.i++
	case '1' <= c && c <= '9':
		s.digits()
	default:
		s.bad = true
		return
	}
	if s.peek() == '.' {
		s.i++
		if !s.digits() {
			s.bad = true
			return
		}
	}
	if c := s.peek(); c == 'e' || c == 'E' {
		s.i++
		if c := s.peek(); c == '+' || c == '-' {
			s.i++
		}
		if !s.digits() {
			s.bad = true
		}
	}
}

// digits steps over a run of digits and reports whether there was one.
func (s *scanner) digits() bool {
	from := s.i
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > from
}

func (s *scanner) literal(lit string) {
	if !bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
		s.bad = true
		return
	}
	s.i += len(lit)
}

// null reads the literal null; anything else is bad.
func (s *scanner) null() { s.literal("null") }

// str reads a string or null for a string field.
func (s *scanner) str(prev string) string {
	if s.peek() == 'n' {
		s.null() // null leaves a string as it is
		return ""
	}
	if s.peek() != '"' {
		s.bad = true
		return ""
	}
	b, from := s.b, s.i+1
	ascii := true
	for j := from; j < len(b); j++ {
		for j < len(b) && plain[b[j]] {
			j++
		}
		if j == len(b) {
			break
		}
		switch c := b[j]; {
		case c == '"':
			v := b[from:j]
			if !ascii && !utf8.Valid(v) {
				return s.unquote()
			}
			s.i = j + 1
			if len(v) >= largeString {
				s.strict = true
			}
			return intern(v, prev)
		case c == '\\':
			return s.unquote()
		case c < 0x20:
			s.bad = true
			return ""
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	s.bad = true
	return ""
}

// unquote reads the string at s.i for a string field with encoding/json itself: escapes
// and invalid UTF-8 (which it replaces) are rare enough not to be worth copying its rules.
func (s *scanner) unquote() string {
	at := s.i
	s.skipString()
	var v string
	if s.bad || json.Unmarshal(s.b[at:s.i], &v) != nil {
		s.bad = true
	}
	return v
}

// text reads a string or null for a String field, aliasing the input as
// String.UnmarshalJSON does.
func (s *scanner) text() String {
	switch s.peek() {
	case 'n':
		s.null()
		return nil
	case '"':
	default:
		s.bad = true // a list content, or not a string
		return nil
	}
	from := s.i + 1
	n := bytes.IndexByte(s.b[from:], '"')
	if n < 0 {
		s.bad = true
		return nil
	}
	to := from + n
	v := s.b[from:to:to]
	s.i = to + 1
	if bytes.IndexByte(v, '\\') >= 0 {
		// The quote may be escaped: find the end again, and let String unescape.
		s.i = from - 1
		at := s.i
		s.skipString()
		var out String
		if s.bad || out.UnmarshalJSON(s.b[at:s.i]) != nil {
			s.bad = true
		}
		return out
	}
	if len(v) >= largeString {
		s.unchecked = true
		return v
	}
	for _, c := range v {
		if c < 0x20 {
			s.bad = true
			return nil
		}
	}
	return v
}

// int reads an integer that fits an int, or null (which leaves an int as it is).
func (s *scanner) int() int {
	if s.peek() == 'n' {
		s.null()
		return 0
	}
	neg := s.peek() == '-'
	if neg {
		s.i++
	}
	from := s.i
	v := 0
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		v = v*10 + int(s.b[s.i]-'0')
		s.i++
	}
	// No digits, a leading zero, a fraction or exponent, or digits an int may not hold.
	switch n := s.i - from; {
	case n == 0, n > 1 && s.b[from] == '0', n > 18:
		s.bad = true
	case s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E'):
		s.bad = true
	}
	if neg {
		return -v
	}
	return v
}
