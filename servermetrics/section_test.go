package servermetrics

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/metrics"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// goldenWindow is a run of 4 s: 10 requests between the first page and the last, TTFT
// 0.1 s on average on the server, and a queue during the run.
func goldenWindow(t *testing.T) *Window {
	w := NewWindow(0)
	w.Add(scrapeOf(t, 0, Before, page{success: 100, ttft: [4]float64{50, 100, 100, 100}, ttftSum: 5}))
	w.Add(scrapeOf(t, time.Second, During, page{running: 4, waiting: 2, success: 103, ttft: [4]float64{51, 102, 103, 103}, ttftSum: 5.2,
		stageInflight: map[string]float64{"thinker": 3, "talker": 1}}))
	w.Add(scrapeOf(t, 3*time.Second, During, page{running: 8, waiting: 6, success: 108, ttft: [4]float64{52, 105, 108, 108}, ttftSum: 5.8,
		stageInflight: map[string]float64{"thinker": 5, "talker": 3}}))
	w.Add(Scrape{At: 3500 * time.Millisecond, Phase: During, Err: "timeout", Detail: "context deadline exceeded"})
	w.Add(scrapeOf(t, 4*time.Second, After, page{success: 110, ttft: [4]float64{52, 106, 110, 110}, ttftSum: 6}))
	return w
}

func clientSinks() func(string) metrics.Sink {
	ttft := metrics.NewTrendSink(100)
	for i := range 10 {
		ttft.Add(metrics.Sample{Value: 102 + float64(i)})
	}
	return func(name string) metrics.Sink {
		if name == "ttft" {
			return ttft
		}
		return nil
	}
}

func TestSectionGolden(t *testing.T) {
	sec := &Section{Report: goldenWindow(t).Summarise("http://127.0.0.1:8000/metrics", clientSinks())}
	var text bytes.Buffer
	if err := sec.Text(&text); err != nil {
		t.Fatal(err)
	}
	js, err := json.MarshalIndent(sec.JSON(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "section.golden", text.Bytes())
	golden(t, "section.json.golden", append(js, '\n'))
}

func TestReconciliationPutsTheClientBesideItsTwin(t *testing.T) {
	r := goldenWindow(t).Summarise("u", clientSinks())
	if len(r.Twins) != 1 {
		t.Fatalf("twins %+v, want TTFT only", r.Twins)
	}
	tw := r.Twins[0]
	if tw.Metric != "TTFT" || tw.ClientN != 10 || tw.ServerN != 10 {
		t.Fatalf("%+v", tw)
	}
	mean := tw.Stats[0]
	// Server: (6 - 5) s over 10 requests = 100 ms; client: 102..111 ms, mean 106.5.
	if mean.Stat != "mean" || *mean.Server != 100 || *mean.Client != 106.5 || *mean.Diff != 6.5 {
		t.Fatalf("mean %+v", mean)
	}
}

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
		t.Fatalf("%v (run go test ./servermetrics -run Golden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n%s\nwant:\n%s", name, got, want)
	}
}

func TestATwinSeveralStagesObserveGetsARowPerStage(t *testing.T) {
	hist := func(stage string, count float64) []Point {
		ls := []Label{{"stage", stage}}
		return []Point{
			{&Series{Family: "vllm:time_to_first_token_seconds", Type: typeHistogram, Part: partBucket, LE: 0.1, Labels: ls}, count},
			{&Series{Family: "vllm:time_to_first_token_seconds", Type: typeHistogram, Part: partBucket, LE: math.Inf(1), Labels: ls}, count},
			{&Series{Family: "vllm:time_to_first_token_seconds", Type: typeHistogram, Part: partSum, Labels: ls}, count * 0.05},
			{&Series{Family: "vllm:time_to_first_token_seconds", Type: typeHistogram, Part: partCount, Labels: ls}, count},
		}
	}
	w := NewWindow(0)
	w.Add(Scrape{Phase: Before, Points: append(hist("thinker", 0), hist("talker", 0)...)})
	w.Add(Scrape{At: time.Second, Phase: After, Points: append(hist("thinker", 10), hist("talker", 4)...)})
	r := w.Summarise("u", clientSinks())
	if len(r.Twins) != 2 || r.Twins[0].Selector["stage"] != "talker" || r.Twins[0].ServerN != 4 || r.Twins[1].ServerN != 10 {
		t.Fatalf("twins %+v, want a TTFT row for each stage", r.Twins)
	}
	var text bytes.Buffer
	if err := (&Section{Report: r}).Text(&text); err != nil || !strings.Contains(text.String(), "TTFT[thinker] (ms)") {
		t.Fatalf("%v\n%s", err, text.String())
	}
}
