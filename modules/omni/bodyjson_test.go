package omni

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"
)

// marshalled is the encoding appendBody must reproduce byte for byte.
func marshalled(v any) ([]byte, error) { return json.Marshal(base64Binary(v, "")) }

func TestAppendBodyWritesWhatMarshalWrites(t *testing.T) {
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 40)...)
	for _, v := range []any{
		map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": "hi"}}, "stream": true, "max_tokens": int64(16)},
		map[string]any{"b": 1.5, "a": math.Copysign(0, -1), "c": 1e21, "d": 1e-7, "e": 123456789.0, "f": 1e-6, "g": 5e-324, "h": math.MaxFloat64},
		map[string]any{"html": "<a href=\"x\">&</a>", "ctl": "tab\there\nnl\u0001", "utf8": "héllo 世界", "bad": "\xff\xfe", "sep": "\u2028\u2029"},
		map[string]any{"nil": nil, "list": []any{nil, true, false, int64(-3)}, "empty": map[string]any{}, "nolist": []any(nil), "zero": []any{}},
		map[string]any{"content": []any{map[string]any{"type": "image_url", "image_url": map[string]any{"url": binary(png)}}}},
		map[string]any{"input_audio": map[string]any{"data": binary("RIFF....WAVE"), "format": "wav"}},
		map[string]any{"when": time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC), "ints": []int{1, 2}, "u": uint8(7)},
		map[string]any{"k\"ey": 1.0, "<k>": "v", "": "empty key"},
	} {
		want, werr := marshalled(v)
		got, gerr := appendBody(nil, v, "")
		if (werr == nil) != (gerr == nil) || !bytes.Equal(got, want) {
			t.Errorf("appendBody(%v)\n got %s (%v)\nwant %s (%v)", v, got, gerr, want, werr)
		}
	}
}

func TestAppendBodyFailsWhereMarshalFails(t *testing.T) {
	for _, v := range []any{math.Inf(1), math.NaN(), map[string]any{"f": func() {}}} {
		if _, err := appendBody(nil, v, ""); err == nil {
			t.Errorf("appendBody(%v): no error, json.Marshal fails", v)
		}
	}
}

// FuzzAppendBody decodes any JSON document into the values a script's body exports to
// (goja gives int64 for integers) and checks appendBody writes what json.Marshal writes.
func FuzzAppendBody(f *testing.F) {
	for _, s := range []string{`{"a":"b"}`, `{"x":[1,2.5,-1e-9,null,true]}`, `{"s":"<&>\u2028\ud800é"}`, `[{"url":"x"}]`, `1e300`, `"\u0000"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		v = integers(v)
		want, werr := marshalled(v)
		got, gerr := appendBody(nil, v, "")
		if (werr == nil) != (gerr == nil) || !bytes.Equal(got, want) {
			t.Fatalf("appendBody(%s)\n got %s (%v)\nwant %s (%v)", data, got, gerr, want, werr)
		}
	})
}

// integers turns whole float64s into int64, as goja's Export does for integers.
func integers(v any) any {
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = integers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = integers(e)
		}
	}
	return v
}
