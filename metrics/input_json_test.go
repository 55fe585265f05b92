package metrics

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

const (
	metricLine = `{"type":"Metric","metric":"t","data":{"name":"t","type":"trend","contains":"time"}}`
	pointLine  = `{"type":"Point","metric":"t","data":{"time":"2026-01-01T00:00:00Z","value":2,"tags":{"a":"b"}}}`
	runLine    = `{"type":"Run","data":{"schema":"x"}}`
)

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

func read(t *testing.T, in string, maxLine int) (collected, ReadStats, error) {
	t.Helper()
	var c collected
	stats, err := readResults(strings.NewReader(in), NewRegistry(), &c, maxLine)
	return c, stats, err
}

// A result file with bad lines is read around them; a killed run's cut-off last line is
// a truncation, not an error; only what is not a result file at all fails.
func TestReadResultsSkipsAndCounts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		in        string
		points    int
		entries   int
		bad       int
		firstBad  string
		truncated bool
		notResult bool
	}{
		{"clean", lines(runLine, metricLine, pointLine, pointLine, `{"type":"End","data":{}}`), 2, 2, 0, "", false, false},
		{"last line without a newline is read", lines(runLine, metricLine) + pointLine, 1, 1, 0, "", false, false},
		{"cut-off last line", lines(runLine, metricLine, pointLine) + pointLine[:30], 1, 1, 0, "", true, false},
		{"a line that is not JSON", lines(runLine, metricLine, "garbage", pointLine), 1, 1, 1, "line 3: not JSON", false, false},
		{"a point before its metric", lines(runLine, pointLine, metricLine, pointLine), 1, 1, 1, `line 2: Point of "t" before its Metric line`, false, false},
		{"a point without a value", lines(runLine, metricLine, `{"type":"Point","metric":"t","data":{"value":null}}`), 0, 1, 1, "", false, false},
		{"a metric of an unknown kind", lines(runLine, `{"type":"Metric","data":{"name":"u","type":"histogram","contains":"time"}}`), 0, 1, 1, "", false, false},
		{"a metric contradicting another", lines(runLine, metricLine, `{"type":"Metric","data":{"name":"t","type":"counter","contains":"time"}}`), 0, 1, 1, "", false, false},
		{"a line past the limit", lines(runLine, metricLine, `{"type":"Record","data":"`+strings.Repeat("x", 300)+`"}`, pointLine), 1, 1, 1, "line 3: longer than 200 bytes", false, false},
		{"empty lines", lines(runLine, "", "  ", metricLine), 0, 1, 0, "", false, false},
		{"a CSV file", "metric_name,timestamp\nttft,2026\n", 0, 0, 0, "", false, true},
		{"JSON without a type", `{"completed": 3}` + "\n", 0, 0, 0, "", false, true},
		{"an empty file", "", 0, 0, 0, "", false, true},
		{"text without a newline", "hello world", 0, 0, 0, "", false, true},
		{"a first line past the limit", lines(`{"type":"Run","data":"`+strings.Repeat("x", 300)+`"}`, metricLine), 0, 0, 0, "", false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, stats, err := read(t, tc.in, 200)
			if tc.notResult {
				if !errors.Is(err, ErrNotResults) {
					t.Errorf("err = %v, want ErrNotResults", err)
				}
				return
			}
			if err != nil || len(c.samples) != tc.points || len(c.entries) != tc.entries || stats.Bad != tc.bad || stats.Truncated != tc.truncated {
				t.Errorf("err %v, %d points, %d entries, stats %+v; want %d, %d, bad %d, truncated %v",
					err, len(c.samples), len(c.entries), stats, tc.points, tc.entries, tc.bad, tc.truncated)
			}
			if tc.firstBad != "" && stats.FirstBad != tc.firstBad {
				t.Errorf("first bad %q, want %q", stats.FirstBad, tc.firstBad)
			}
		})
	}
}

// A gzip stream cut off by a killed run is read up to the cut.
func TestReadResultsTruncatedGzip(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write([]byte(lines(runLine, metricLine, pointLine, pointLine, pointLine)))
	_ = zw.Close()
	whole := buf.Bytes()
	var c collected
	stats, err := ReadResults(bytes.NewReader(whole), NewRegistry(), &c)
	if err != nil || len(c.samples) != 3 || stats.Truncated {
		t.Fatalf("whole gzip: %v, %d points, %+v", err, len(c.samples), stats)
	}
	c = collected{}
	stats, err = ReadResults(bytes.NewReader(whole[:len(whole)-12]), NewRegistry(), &c)
	if err != nil || !stats.Truncated || len(c.entries) != 1 {
		t.Errorf("cut gzip: %v, %d entries, %+v; want the header read and a truncation", err, len(c.entries), stats)
	}
}

// An entry handler's error stops the read (a record of a newer schema).
func TestReadResultsStopsOnHandlerError(t *testing.T) {
	t.Parallel()
	stop := errors.New("newer")
	h := handlerFunc(func(string) error { return stop })
	if _, err := ReadResults(strings.NewReader(lines(runLine, runLine)), NewRegistry(), h); !errors.Is(err, stop) {
		t.Errorf("err = %v, want the handler's", err)
	}
}

type handlerFunc func(typ string) error

func (f handlerFunc) Samples([]Sample)                          {}
func (f handlerFunc) Entry(typ string, _ json.RawMessage) error { return f(typ) }

// ReadResults never panics, whatever the bytes.
func FuzzReadResults(f *testing.F) {
	f.Add([]byte(lines(runLine, metricLine, pointLine)))
	f.Add([]byte(lines(runLine, metricLine) + pointLine[:20]))
	f.Add([]byte{0x1f, 0x8b, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		var c collected
		_, _ = readResults(bytes.NewReader(data), NewRegistry(), &c, 1024)
	})
}

// Entry lines as the json output writes them, and with their keys sorted, are split
// without being decoded; anything else is left to json.Unmarshal.
func TestEntryLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line, typ, data string
		ok              bool
	}{
		{`{"type":"Record","data":{"a":[1,2,{"b":"}"}]}}`, "Record", `{"a":[1,2,{"b":"}"}]}`, true},
		{`{"data":{"a":"\",\"type\":\"x"},"type":"Record"}`, "Record", `{"a":"\",\"type\":\"x"}`, true},
		{`{"type":"End","data":null}`, "End", "null", true},
		{`{"data":1,"type":""}`, "", "1", true},
		{runLine, "Run", `{"schema":"x"}`, true},
		{metricLine, "", "", false},
		{pointLine, "", "", false},
		{`{"type":"Record","data":1,"type":"End"}`, "", "", false},
		{`{"data":1,"type":"x","type":"Record"}`, "", "", false},
		{`{"type":"Record","data": 1}`, "", "", false},
		{`{"type":"Rec\u006frd","data":1}`, "", "", false},
		{`{"type":"Record","data":{"a":1}`, "", "", false},
		{`{"type":"Record","data":}`, "", "", false},
		{`{"type":"Record"}`, "", "", false},
		{`{"data":{},"type":"Record"} `, "", "", false},
	}
	for _, tc := range tests {
		typ, data, ok := entryLine([]byte(tc.line))
		if ok != tc.ok || typ != tc.typ || string(data) != tc.data {
			t.Errorf("entryLine(%s) = %q, %s, %v; want %q, %s, %v", tc.line, typ, data, ok, tc.typ, tc.data, tc.ok)
		}
	}
	var buf bytes.Buffer
	if err := (&jsonEncoder{}).entry(&buf, Entry{Type: "Record", Data: map[string]any{"x": []int{1}}}); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := entryLine(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))); !ok {
		t.Errorf("the json output's entry line %s is not split", buf.Bytes())
	}
}

// A line entryLine splits decodes to what it says.
func FuzzEntryLine(f *testing.F) {
	for _, s := range []string{runLine, metricLine, pointLine, `{"data":{"a":"b"},"type":"Record"}`,
		`{"type":"Record","data":1,"type":"End"}`, `{"data":1,"type":"x","type":"Record"}`, `{"type":"End","data":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		typ, data, ok := entryLine(b)
		if !ok {
			return
		}
		var l resultLine
		if err := json.Unmarshal(b, &l); err != nil {
			t.Fatalf("entryLine split %q, which does not decode: %v", b, err)
		}
		if l.Type != typ || !bytes.Equal(l.Data, data) || l.Metric != "" {
			t.Fatalf("entryLine(%q) = %q, %q; it decodes to %q, %q, metric %q", b, typ, data, l.Type, l.Data, l.Metric)
		}
	})
}
