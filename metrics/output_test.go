package metrics

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"path/filepath"
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

func TestJSONOutputRoundTrip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "out.ndjson")
	out, err := NewOutput("json=" + path)
	if err != nil {
		t.Fatal(err)
	}
	if err := out.Start(); err != nil {
		t.Fatal(err)
	}
	in := outputSamples()
	out.AddSamples(in[:2])
	out.AddSamples(in[2:])
	out.AddRecord(map[string]any{"status": 200, "ttft_ms": 12.5})
	if err := out.Stop(); err != nil {
		t.Fatal(err)
	}
	f, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	type line struct {
		Type   string          `json:"type"`
		Metric string          `json:"metric"`
		Data   json.RawMessage `json:"data"`
	}
	var types []string
	var points []Sample
	sc := bufio.NewScanner(bytes.NewReader(f))
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		types = append(types, l.Type+":"+l.Metric)
		if l.Type == "Point" {
			var p struct {
				Time     time.Time         `json:"time"`
				Value    float64           `json:"value"`
				Tags     map[string]string `json:"tags"`
				Metadata map[string]string `json:"metadata"`
			}
			if err := json.Unmarshal(l.Data, &p); err != nil {
				t.Fatal(err)
			}
			points = append(points, Sample{Tags: NewTagSet(p.Tags), Time: p.Time, Value: p.Value, Metadata: p.Metadata})
		}
	}
	want := "Metric:ttft Point:ttft Metric:iterations Point:iterations Point:ttft Record:"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("lines %s, want %s", got, want)
	}
	for i, p := range points {
		w := in[i]
		if !p.Time.Equal(w.Time) || p.Value != w.Value || p.Tags.Key() != w.Tags.Key() || len(p.Metadata) != len(w.Metadata) {
			t.Errorf("point %d = %+v, want %+v", i, p, w)
		}
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
	out.AddSamples(in)
	out.AddRecord("a record")
	err := out.Stop()
	if err == nil || !strings.Contains(err.Error(), "output csv=test lost 1 points: csv output cannot write per-request records") {
		t.Errorf("Stop() = %v, want the lost record reported", err)
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
		out.AddSamples(outputSamples())
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
			out.AddSamples(outputSamples())
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
				outs.AddSamples(outputSamples())
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
	outs.AddSamples(outputSamples())
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
	out, _ := NewOutput("json=" + filepath.Join(t.TempDir(), "missing", "x"))
	if err := out.Start(); err == nil {
		t.Error("Start into a missing directory succeeded")
	}
}
