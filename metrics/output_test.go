package metrics

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// blockingWriter holds every write until release is closed.
type blockingWriter struct {
	release chan struct{}
	bytes.Buffer
}

func (b *blockingWriter) Write(p []byte) (int, error) { <-b.release; return b.Buffer.Write(p) }

func outputSamples() []Sample {
	reg := testRegistry()
	ttft, iters := reg.Get("ttft"), reg.Get("iterations")
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC)
	return []Sample{
		{Metric: ttft, Tags: NewTagSet(map[string]string{"stage": "thinker", "path": "/v1/chat?x=1&y=\"2\""}), Time: t0, Value: 12.5,
			Metadata: map[string]string{"vu": "3", "iter": "0"}},
		{Metric: iters, Time: t0.Add(time.Millisecond), Value: 1},
		{Metric: ttft, Time: t0.Add(2 * time.Millisecond), Value: 0.000125},
	}
}

// collected is a ResultHandler that keeps everything.
type collected struct {
	samples []Sample
	entries []string // type:data
}

func (c *collected) Samples(b []Sample) { c.samples = append(c.samples, b...) }
func (c *collected) Entry(typ string, data json.RawMessage) error {
	c.entries = append(c.entries, typ+":"+string(data))
	return nil
}

// What the json output writes, ReadResults reads back: every point the run measured with
// its metric, time, tags and metadata, and every entry in order; derived points are left
// to the records. Plain and gzip files alike.
func TestJSONOutputRoundTrip(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"out.ndjson", "out.ndjson.gz"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), name)
			out, err := NewOutput("json=" + path)
			if err != nil {
				t.Fatal(err)
			}
			if err := out.Start(); err != nil {
				t.Fatal(err)
			}
			in := outputSamples()
			out.AddEntry(Entry{Type: "Run", Data: map[string]int{"n": 1}})
			out.AddSamples(in[:2], false)
			out.AddSamples([]Sample{{Metric: in[0].Metric, Value: 99}}, true)
			out.AddSamples(in[2:], false)
			out.AddEntry(Entry{Type: "Record", Data: map[string]any{"status": 200}})
			if err := out.Stop(); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			reg := NewRegistry()
			var got collected
			stats, err := ReadResults(f, reg, &got)
			if err != nil || stats.Bad != 0 || stats.Truncated {
				t.Fatalf("ReadResults: %v, %+v", err, stats)
			}
			if want := []string{`Run:{"n":1}`, `Record:{"status":200}`}; !slices.Equal(got.entries, want) {
				t.Errorf("entries %q, want %q", got.entries, want)
			}
			if len(got.samples) != len(in) {
				t.Fatalf("%d points read back, want %d (no derived one)", len(got.samples), len(in))
			}
			for i, p := range got.samples {
				w := in[i]
				if p.Metric != reg.Get(w.Metric.Name) || *p.Metric != *w.Metric || !p.Time.Equal(w.Time) || p.Value != w.Value ||
					p.Tags.Key() != w.Tags.Key() || !maps.Equal(p.Metadata, w.Metadata) {
					t.Errorf("point %d = %+v, want %+v", i, p, w)
				}
			}
		})
	}
}

func TestCSVOutputRoundTrip(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	out := NewCSVOutput(&buf, "csv=test")
	if err := out.Start(); err != nil {
		t.Fatal(err)
	}
	in := outputSamples()
	out.AddSamples(in[:1], false)
	// CSV has no record rows: the points derived from records stand for them.
	out.AddEntry(Entry{Type: "Record", Data: "a record"})
	out.AddSamples(in[1:], true)
	if err := out.Stop(); err != nil || out.Lost() != 0 {
		t.Errorf("Stop() = %v, lost %d; want nothing lost", err, out.Lost())
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != "metric_name,timestamp,metric_value,tags,metadata" || len(rows) != len(in)+1 {
		t.Fatalf("rows = %q", rows)
	}
	for i, row := range rows[1:] {
		w := in[i]
		ts, _ := time.Parse(time.RFC3339Nano, row[1])
		v, _ := strconv.ParseFloat(row[2], 64)
		tags, _ := url.ParseQuery(row[3])
		meta, _ := url.ParseQuery(row[4])
		got := map[string]string{}
		for k := range tags {
			got[k] = tags.Get(k)
		}
		if row[0] != w.Metric.Name || !ts.Equal(w.Time) || v != w.Value || NewTagSet(got).Key() != w.Tags.Key() || len(meta) != len(w.Metadata) {
			t.Errorf("row %d = %q, want %+v", i, row, w)
		}
	}
}

func TestOutputWriteFailureIsReported(t *testing.T) {
	t.Parallel()
	out := NewJSONOutput(failingWriter{}, "json=x.ndjson")
	if err := out.Start(); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		out.AddSamples(outputSamples(), false)
	}
	err := out.Stop()
	if err == nil || !strings.Contains(err.Error(), "output json=x.ndjson lost 30 points: disk full") {
		t.Errorf("Stop() = %v", err)
	}
	if out.Lost() != 30 {
		t.Errorf("Lost() = %d, want 30", out.Lost())
	}
}

func TestSlowOutputDropsWithoutBlocking(t *testing.T) {
	t.Parallel()
	w := &blockingWriter{release: make(chan struct{})}
	out := NewJSONOutput(w, "json=slow", OutputBuffer(2))
	if err := out.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		for range 100 {
			out.AddSamples(outputSamples(), false)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("AddSamples blocked on a stuck writer")
	}
	close(w.release)
	err := out.Stop()
	lost := out.Lost()
	if lost == 0 || err == nil || !strings.Contains(err.Error(), "could not keep up") {
		t.Fatalf("lost %d, Stop() = %v", lost, err)
	}
	written := int64(strings.Count(w.String(), `"type":"Point"`))
	if written+lost != 300 {
		t.Errorf("written %d + lost %d != 300 points", written, lost)
	}
}

func TestStopFlushesEverything(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	outs := Outputs{NewJSONOutput(&buf, "json=a")}
	if err := outs.Start(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 250 {
				outs.AddSamples(outputSamples(), false)
			}
		}()
	}
	wg.Wait()
	if err := outs.Stop(); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), `"type":"Point"`); n != 3000 || outs.Lost() != 0 {
		t.Errorf("%d points written, %d lost; want 3000, 0", n, outs.Lost())
	}
	outs.AddSamples(outputSamples(), false)
	if outs.Lost() != 3 {
		t.Errorf("samples after Stop: lost %d, want 3", outs.Lost())
	}
}

func TestNewOutputSpecs(t *testing.T) {
	t.Parallel()
	for spec, want := range map[string]string{"json=": "missing file name", "xml=a": `unknown output "xml"`, "csv": "missing file name"} {
		if _, err := NewOutput(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("NewOutput(%q) = %v, want %q", spec, err, want)
		}
	}
	// A missing directory is made; a path under a file cannot be.
	dir := t.TempDir()
	made, _ := NewOutput("json=" + filepath.Join(dir, "missing", "x.ndjson.gz"))
	if err := made.Start(); err != nil {
		t.Errorf("Start into a missing directory: %v", err)
	} else if err := made.Stop(); err != nil {
		t.Error(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ := NewOutput("json=" + filepath.Join(dir, "file", "x"))
	if err := out.Start(); err == nil {
		t.Error("Start under a regular file succeeded")
	}
}
