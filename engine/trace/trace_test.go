package trace

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseFormats(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	tests := []struct {
		name, format, in string
		wantFormat       string
		offsets          []time.Duration
		lines            []int32
		sessions         []string
	}{
		{"omnik, detected", "", `{"offset_ms": 0, "body": {"messages": []}}
{"offset_ms": 12.5, "session": "a", "dataset": 3}

{"offset_ms": 40, "session": "a"}`, Omnik, []time.Duration{0, 12500 * time.Microsecond, 40 * ms}, []int32{1, 2, 4}, []string{"a"}},
		{"mooncake, detected", "", `{"timestamp": 0, "input_length": 655, "output_length": 52, "hash_ids": [0, 1, 2]}
{"timestamp": 105, "input_length": 1800, "output_length": 26, "hash_ids": [0, 3, 4, 5], "session_id": 7}`, Mooncake, []time.Duration{0, 105 * ms}, []int32{1, 2}, []string{"7"}},
		{"out of order sorts stably", "omnik", `{"offset_ms": 30}
{"offset_ms": 10}
{"offset_ms": 30, "session": "x"}
{"offset_ms": 20, "session": "y"}`, Omnik, []time.Duration{10 * ms, 20 * ms, 30 * ms, 30 * ms}, []int32{2, 4, 1, 3}, []string{"x", "y"}},
		{"explicit mooncake ignores offset_ms", "mooncake", `{"timestamp": 5, "offset_ms": 99}`, Mooncake, []time.Duration{5 * ms}, []int32{1}, nil},
		{"nulls are absent keys", "", `{"timestamp": 3, "session_id": null, "delay": null, "hash_ids": null, "input_length": null}`, Mooncake, []time.Duration{3 * ms}, []int32{1}, nil},
		{"CRLF and spaces", "", "  {\"offset_ms\": 1}\r\n\r\n{\"offset_ms\": 2}\r\n", Omnik, []time.Duration{ms, 2 * ms}, []int32{1, 3}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr, err := Parse(strings.NewReader(tt.in), "t.jsonl", tt.format)
			if err != nil {
				t.Fatal(err)
			}
			var offsets []time.Duration
			var lines []int32
			for _, e := range tr.Entries {
				offsets, lines = append(offsets, e.Offset), append(lines, e.Line)
			}
			if tr.Format != tt.wantFormat || !reflect.DeepEqual(offsets, tt.offsets) || !reflect.DeepEqual(lines, tt.lines) || !reflect.DeepEqual(tr.Sessions, tt.sessions) {
				t.Errorf("format %s, offsets %v, lines %v, sessions %v; want %s %v %v %v", tr.Format, offsets, lines, tr.Sessions, tt.wantFormat, tt.offsets, tt.lines, tt.sessions)
			}
		})
	}
}

func TestParseErrorsNameTheLine(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, format, in, want string }{
		{"empty", "", "", "trace t.jsonl: no entries"},
		{"blank only", "", "\n  \n", "trace t.jsonl: no entries"},
		{"not JSON", "", "{\"offset_ms\": 0}\n{oops", "trace t.jsonl:2: want a JSON object (invalid character"},
		{"an array", "", "[1]", "trace t.jsonl:1: want a JSON object"},
		{"null", "", "null", "trace t.jsonl:1: want a JSON object"},
		{"null time", "mooncake", `{"timestamp": null}`, `no "timestamp"`},
		{"no time", "", `{"offset_ms": 0}` + "\n" + `{"body": {}}`, `trace t.jsonl:2: no "offset_ms" (milliseconds from the trace's start; omnik format)`},
		{"mixed formats", "", `{"timestamp": 0}` + "\n" + `{"offset_ms": 1}`, `trace t.jsonl:2: no "timestamp"`},
		{"ambiguous", "", `{"timestamp": 0, "offset_ms": 0}`, `set the scenario's "format"`},
		{"delay turns", "mooncake", `{"timestamp": 0}` + "\n" + `{"delay": 500}`, `"delay" are not supported`},
		{"negative", "", `{"offset_ms": -1}`, `trace t.jsonl:1: "offset_ms" -1 ms: want 0 to`},
		{"absolute time", "mooncake", `{"timestamp": 1733000000000}`, "make absolute times relative to the first"},
		{"string time", "", `{"offset_ms": "1s"}`, `"offset_ms" must be a number of milliseconds, got "1s"`},
		{"fractional length", "", `{"offset_ms": 0, "input_length": 1.5}`, `"input_length" must be a non-negative integer, got 1.5`},
		{"negative dataset", "", `{"offset_ms": 0, "dataset": -2}`, `"dataset" must be a non-negative integer`},
		{"bad hash ids", "", `{"offset_ms": 0, "hash_ids": [1, "x"]}`, `"hash_ids" must be an array of integers`},
		{"body not an object", "", `{"offset_ms": 0, "body": "hi"}`, `"body" must be a JSON object`},
		{"session object", "", `{"offset_ms": 0, "session": {}}`, `"session" must be a string or a number`},
		{"unknown format", "csv", `{"offset_ms": 0}`, `format "csv": want "omnik" or "mooncake"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse(strings.NewReader(tt.in), "t.jsonl", tt.format)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// A line past MaxLine is an error that names it, read in bounded pieces rather than
// whole: a file with no newline at all must not take the memory it would need.
func TestHugeLineIsAnError(t *testing.T) {
	t.Parallel()
	in := joined(`{"offset_ms": 0}`+"\n", `{"offset_ms": 1, "body": {"x": "`, strings.Repeat("a", MaxLine), `"}}`)
	_, err := Parse(in, "t.jsonl", "")
	if err == nil || !strings.Contains(err.Error(), "trace t.jsonl:2: line longer than 16 MiB") {
		t.Errorf("error %v", err)
	}
	// Just under the bound is fine.
	ok := joined(`{"offset_ms": 1, "body": {"x": "`, strings.Repeat("a", MaxLine-64), `"}}`)
	if _, err := Parse(ok, "t.jsonl", ""); err != nil {
		t.Error(err)
	}
}

func joined(parts ...string) *strings.Reader { return strings.NewReader(strings.Join(parts, "")) }

// Object is the line as written plus the entry's place: what a script reads.
func TestObjectIsTheLineAndItsPlace(t *testing.T) {
	t.Parallel()
	tr, err := Parse(strings.NewReader(`{"timestamp": 250, "input_length": 10, "hash_ids": [4, 5], "session_id": "s1", "extra": {"k": true}}
{"timestamp": 100.5, "output_length": 3}`), "t.jsonl", "")
	if err != nil {
		t.Fatal(err)
	}
	got := Ref{tr, 1}.Object()
	want := map[string]any{"timestamp": 250.0, "input_length": 10.0, "hash_ids": []any{4.0, 5.0}, "session_id": "s1", "extra": map[string]any{"k": true},
		"index": 1, "line": 1, "offset_ms": 250.0, "session": "s1"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entry 1 = %v\nwant      %v", got, want)
	}
	if first := tr.Object(0); first["offset_ms"] != 100.5 || first["line"] != 2 || first["session"] != nil {
		t.Errorf("entry 0 = %v", first)
	}
	if tr.Span() != 250*time.Millisecond {
		t.Errorf("span %v", tr.Span())
	}
}

func TestLoadReadsGzipAndNamesMissingFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b bytes.Buffer
	gz := gzip.NewWriter(&b)
	_, _ = gz.Write([]byte(`{"timestamp": 7}` + "\n"))
	_ = gz.Close()
	path := filepath.Join(dir, "t.jsonl.gz")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := Load(path, "")
	if err != nil || tr.Format != Mooncake || tr.Entries[0].Offset != 7*time.Millisecond {
		t.Fatalf("%+v, %v", tr, err)
	}
	if _, err := Load(filepath.Join(dir, "none.jsonl"), ""); err == nil || !strings.Contains(err.Error(), "none.jsonl: open") {
		t.Errorf("missing file: %v", err)
	}
}
