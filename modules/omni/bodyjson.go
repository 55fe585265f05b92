package omni

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strconv"
	"unicode/utf8"
)

// appendBody appends v as JSON the way json.Marshal(base64Binary(v, key)) writes it, in
// one pass without the copies: maps with sorted keys, binary as base64 (a data: URL
// under "url"). The common values (plain-ASCII strings, numbers, bools, maps, lists) are
// written here; anything else goes through encoding/json, so the bytes are the same.
func appendBody(b []byte, v any, key string) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return appendString(b, x)
	case bool:
		return strconv.AppendBool(b, x), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case float64:
		return appendFloat(b, x)
	case binary:
		b = append(b, '"')
		if key == "url" {
			b = append(b, "data:"+http.DetectContentType(x)+";base64,"...)
		}
		b = base64.StdEncoding.AppendEncode(b, x)
		return append(b, '"'), nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendString(b, k); err != nil {
				return b, err
			}
			b = append(b, ':')
			if b, err = appendBody(b, x[k], k); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	case []any:
		b = append(b, '[') // a nil list too: base64Binary's copy of it is an empty one
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendBody(b, e, key); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	}
	return appendMarshal(b, v)
}

// appendString writes s as is when encoding/json would: printable ASCII without the
// characters it escapes (quote, backslash, and <, >, & for HTML).
func appendString(b []byte, s string) ([]byte, error) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return appendMarshal(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), nil
}

// appendFloat writes f as encoding/json does: 'f' form, 'e' form for very small or
// large magnitudes with a one-digit negative exponent trimmed (1e-07 → 1e-7).
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return appendMarshal(b, f) // its error
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

func appendMarshal(b []byte, v any) ([]byte, error) {
	out, err := json.Marshal(v)
	return append(b, out...), err
}
