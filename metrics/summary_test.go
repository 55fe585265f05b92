package metrics

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -run %s -update to accept):\n%s", name, t.Name(), got)
	}
}

type fakeSection struct{}

func (fakeSection) Name() string { return "omni" }
func (fakeSection) Text(w io.Writer) error {
	_, err := fmt.Fprintln(w, "==== Serving Benchmark Result ====")
	return err
}
func (fakeSection) JSON() any { return map[string]int{"completed": 3} }

// testSummary runs a small pipeline: checks in groups, a sub-metric, each kind.
func testSummary(t *testing.T, opts SummaryOptions) *Summary {
	t.Helper()
	reg := testRegistry()
	b := RegisterBuiltins(reg)
	ttft := reg.Get("ttft")
	ths, err := ParseThresholds(json.RawMessage(`{"ttft":["p(95)<500"],"ttft{stage:talker}":["avg<1"],"ttft{stage:thinker}":["max<400"],"checks":["rate>0.9"],"data_received":["count>1"]}`), nil, reg.Get)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(0, 0)
	now := t0
	p := NewPipeline(WithClock(func() time.Time { return now }), WithTrendBudget(4))
	for _, th := range ths {
		if th.Selector != nil {
			if err := p.AddSubMetric(th.Metric, th.Selector); err != nil {
				t.Fatal(err)
			}
		}
	}
	p.Start()
	thinker := NewTagSet(map[string]string{"stage": "thinker"})
	var batch []Sample
	for i, v := range []float64{120.5, 80, 95.25, 300, 410.75} {
		batch = append(batch, Sample{Metric: ttft, Tags: thinker, Time: t0.Add(time.Duration(i)), Value: v})
	}
	check := func(group, name string, v float64) Sample {
		tags := map[string]string{"check": name}
		if group != "" {
			tags["group"] = group
		}
		return Sample{Metric: b.Checks, Tags: NewTagSet(tags), Value: v}
	}
	batch = append(batch,
		check("", "status is 200", 1), check("", "status is 200", 1), check("", "status is 200", 0),
		check("::chat", "has audio", 1), check("::chat::stream", "first chunk", 1),
		Sample{Metric: b.GroupDuration, Tags: NewTagSet(map[string]string{"group": "::chat"}), Value: 12},
		Sample{Metric: b.DataReceived, Value: 1_500_000}, Sample{Metric: b.Iterations, Value: 1}, Sample{Metric: b.Iterations, Value: 1},
		Sample{Metric: b.VUs, Time: t0, Value: 2}, Sample{Metric: b.VUs, Time: t0.Add(time.Second), Value: 1})
	p.Collect(batch)
	now = t0.Add(2 * time.Second)
	snap := p.Stop()
	return NewSummary(snap, EvaluateThresholds(ths, snap), opts, fakeSection{})
}

func TestSummaryTextGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file string
		opts SummaryOptions
	}{
		{"summary.golden", SummaryOptions{NoColor: true}},
		{"summary_seconds_count.golden", SummaryOptions{NoColor: true, TimeUnit: "s", TrendStats: []Stat{{Name: "count"}, {Name: "avg"}, Percentile(99.9)}}},
		{"summary_color.golden", SummaryOptions{}},
	} {
		var buf bytes.Buffer
		if err := testSummary(t, tc.opts).WriteText(&buf); err != nil {
			t.Fatal(err)
		}
		golden(t, tc.file, buf.Bytes())
	}
}

func TestSummaryJSONGolden(t *testing.T) {
	t.Parallel()
	s := testSummary(t, SummaryOptions{NoColor: true})
	var buf bytes.Buffer
	if err := s.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	golden(t, "summary.json.golden", buf.Bytes())

	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	if m["schema"] != SummarySchema {
		t.Errorf("schema = %v", m["schema"])
	}
	th := m["thresholds"].([]any)[1].(map[string]any)
	if th["ok"] != false || th["no_data"] != true || th["observed"] != nil {
		t.Errorf("no-data threshold exported as %v", th)
	}
	ttft := m["metrics"].(map[string]any)["ttft"].(map[string]any)
	if ttft["approximate"] != true || ttft["thresholds"].(map[string]any)["p(95)<500"] != true {
		t.Errorf("ttft exported as %v", ttft)
	}
}

func TestWriteTextReportsWriteErrors(t *testing.T) {
	t.Parallel()
	if err := testSummary(t, SummaryOptions{NoColor: true}).WriteText(failingWriter{}); err == nil {
		t.Error("WriteText to a failing writer returned nil")
	}
}

// A sub-metric's row stays under its parent, whatever names sort between them.
func TestSubMetricsSortUnderTheirParent(t *testing.T) {
	t.Parallel()
	names := []string{"e2el_intended", "e2el{scenario:s}", "e2el", "e2el_intended{scenario:s}", "e2el{endpoint:chat}", "a_b"}
	sortUnderParents(names)
	want := []string{"a_b", "e2el", "e2el{endpoint:chat}", "e2el{scenario:s}", "e2el_intended", "e2el_intended{scenario:s}"}
	if !slices.Equal(names, want) {
		t.Errorf("order %q, want %q", names, want)
	}
}

// The client's own metrics are in the JSON summary but not in METRICS, unless a threshold
// judges them; warnings end the text, one line each, and are in the JSON.
func TestQuietMetricsAndWarnings(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name       string
		thresholds string
		listed     bool
	}{{"unjudged", `{}`, false}, {"judged", `{"client_cpu":["avg<0.8"]}`, true}} {
		t.Run(c.name, func(t *testing.T) {
			reg := NewRegistry()
			b := RegisterBuiltins(reg)
			ths, err := ParseThresholds(json.RawMessage(c.thresholds), nil, reg.Get)
			if err != nil {
				t.Fatal(err)
			}
			t0 := time.Unix(0, 0)
			p := NewPipeline(WithClock(func() time.Time { return t0 }))
			p.Start()
			p.Collect([]Sample{{Metric: b.ClientCPU, Time: t0, Value: 0.93}, {Metric: b.ClientLag, Time: t0, Value: 41}, {Metric: b.Iterations, Time: t0, Value: 1}})
			snap := p.Stop()
			s := NewSummary(snap, EvaluateThresholds(ths, snap), SummaryOptions{NoColor: true})
			s.Warnings = []string{"WARNING client saturated: CPU 93 % of 1 core"}
			var text, js bytes.Buffer
			if err := s.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			if err := s.WriteJSON(&js); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(text.String(), "client_cpu"); got != c.listed {
				t.Errorf("client_cpu listed %v, want %v:\n%s", got, c.listed, text.String())
			}
			if strings.Contains(text.String(), "client_lag") || !strings.Contains(text.String(), "iterations") {
				t.Errorf("METRICS:\n%s", text.String())
			}
			if !strings.HasSuffix(text.String(), "\n  WARNING client saturated: CPU 93 % of 1 core\n\n") {
				t.Errorf("the text does not end with the warning:\n%s", text.String())
			}
			for _, want := range []string{`"client_cpu": {`, `"client_lag": {`, `"warnings": [`} {
				if !strings.Contains(js.String(), want) {
					t.Errorf("the JSON summary lacks %s", want)
				}
			}
		})
	}
}
