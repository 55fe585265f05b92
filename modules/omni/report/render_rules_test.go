package report

import (
	"bytes"
	"github.com/omnik-dev/omnik/modules/omni/chunk"
	"github.com/omnik-dev/omnik/modules/omni/record"
	"strings"
	"testing"
	"time"
)

func TestHeaderPutsExtraFillRight(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		fill byte
		want string
	}{
		{"Time per Output Token (excl. 1st token)", '-', "-----Time per Output Token (excl. 1st token)------"},
		{" Stage 0 (thinker) ", '=', "=============== Stage 0 (thinker) ================"},
		{" Serving Benchmark Result ", '=', "============ Serving Benchmark Result ============"},
		{strings.Repeat("x", 52), '=', strings.Repeat("x", 52)},
	}
	for _, tt := range tests {
		var p printer
		p.header(tt.text, tt.fill)
		if got := p.String(); got != tt.want+"\n" {
			t.Errorf("header(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestRowsPadToFortyAndTen(t *testing.T) {
	t.Parallel()
	var p printer
	p.intRow("Successful requests:", 3)
	p.floatRow("Average pixels per image:", 1048576)
	p.row("Streaming continuity OK rate:", "100.00%")
	p.row("AUDIO_DURATION skipped:", "missing stage-local audio duration/sample rate")
	p.floatRow("A label that is longer than forty characters:", 0.005)
	want := "Successful requests:                     3         \n" +
		"Average pixels per image:                1048576.00\n" +
		"Streaming continuity OK rate:            100.00%   \n" +
		"AUDIO_DURATION skipped:                  missing stage-local audio duration/sample rate\n" +
		"A label that is longer than forty characters: 0.01      \n"
	if got := p.String(); got != want {
		t.Errorf("rows:\n%q\nwant\n%q", got, want)
	}
}

func render(t *testing.T, r *Result, opts RenderOptions) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(&buf, r, opts); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestRenderBlockRules(t *testing.T) {
	t.Parallel()
	allFailed := aggregate([]*record.Record{req(failed(record.KindConnect))}, time.Second, Options{})
	empty := aggregate(nil, time.Second, Options{})
	// Two 1 s chunks, the second 20 ms late.
	speech := aggregate([]*record.Record{req(at(0, 1200), speech(48000, 100, 1120))}, time.Second, Options{})
	images := aggregate([]*record.Record{req(at(0, 1000), image(10, 4, 0, 0))}, time.Second, Options{})
	mixed := aggregate(mixedRun(), 4*time.Second, Options{MaxConcurrency: 4, RequestRate: 2, Goodput: []SLO{{"e2el", time.Second}}})
	ref, err := ParseMetrics(ReferenceMetrics)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		r          *Result
		opts       RenderOptions
		want, miss []string
	}{
		{"empty TTFT/TPOT/ITL blocks are skipped, E2EL prints zeros", allFailed,
			RenderOptions{Metrics: []string{"e2el", "ttft", "tpot", "itl"}},
			[]string{"Failed requests:                         1         \n", "Mean E2EL (ms):                          0.00      \n"},
			[]string{"TTFT", "Audio Result", "Image Result"}},
		{"default selection leaves out E2EL without samples", allFailed, RenderOptions{},
			[]string{"Total generated tokens:                  0         \n"}, []string{"E2EL"}},
		{"an empty run is not a speech run: the usual Text Result rows", empty, RenderOptions{},
			[]string{"Total input tokens:                      0         \nTotal generated tokens:                  0         \n",
				"Peak concurrent requests:                0.00      \n"}, nil},
		{"speech without text prints only the input tokens", speech, RenderOptions{},
			[]string{"================== Text Result ===================\nTotal input tokens:                      0         \n================== Audio Result ==================\n",
				"Mean AUDIO_TTFP (ms):                    100.00    \n", "Mean AUDIO_DURATION (s):                 2.00      \n",
				"Mean AUDIO_UNDERRUN (s):                 0.02      \n"},
			[]string{"Total generated tokens:", "TTFT"}},
		{"image run without text has no Text Result", images, RenderOptions{},
			[]string{"Average pixels per image:                4.00      \n"},
			[]string{"Text Result", "Mean denoise", "Image Generation"}},
		{"reference defaults: no E2EL, no audio blocks", mixed, RenderOptions{Metrics: ref},
			[]string{"Maximum request concurrency:             4         \n", "Request rate configured (RPS):           2.00      \n",
				"Request goodput (req/s):                 0.50      \n", "P99 ITL (ms):", "Streaming continuity OK rate:            0.00%     \n"},
			[]string{"E2EL", "AUDIO_TTFP", "Stage Benchmark Result"}},
		{"audio blocks follow the given order", mixed, RenderOptions{Metrics: []string{"audio_rtf", "audio_ttfp"}},
			[]string{"Real Time Factor-----------------\nMean AUDIO_RTF:                          4.00      \nMedian AUDIO_RTF:                        4.00      \nP99 AUDIO_RTF:                           7.43      \n---------------Time to First Packet"},
			[]string{"TTFT"}},
		{"a scenario title", mixed, RenderOptions{Title: "Scenario chat"},
			[]string{strings.Repeat("=", 17) + " Scenario chat " + strings.Repeat("=", 18) + "\n"}, []string{"Serving Benchmark Result"}},
		{"stage section needs stage data", speech, RenderOptions{Stages: true}, nil, []string{"Stage Benchmark Result"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := render(t, tt.r, tt.opts)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in\n%s", w, got)
				}
			}
			for _, m := range tt.miss {
				if strings.Contains(got, m) {
					t.Errorf("unexpected %q in\n%s", m, got)
				}
			}
			if !strings.HasSuffix(got, strings.Repeat("=", 50)+"\n") || strings.Contains(got, "NaN") {
				t.Errorf("bad ending or NaN:\n%s", got)
			}
		})
	}
}

// TestRenderAggregatedRun pins the whole path, records → Accumulator → Render with
// omnik's defaults and the stage section, including the stage-only rows the seeds do not
// show.
func TestRenderAggregatedRun(t *testing.T) {
	t.Parallel()
	recs := mixedRun()
	for i, s := range stagedRun() {
		for k, st := range s.Stages {
			if recs[i].Stages == nil {
				recs[i].Stages = map[string]chunk.Stage{}
			}
			recs[i].Stages[k] = st
		}
	}
	r := aggregate(recs, 4*time.Second, Options{Percentiles: []float64{50, 99.9}})
	compareGolden(t, "aggregated_run.golden", render(t, r, RenderOptions{Stages: true}))
}

func TestParseMetricsAndPercentiles(t *testing.T) {
	t.Parallel()
	if m, err := ParseMetrics("ttft, e2el,audio_rtf"); err != nil || len(m) != 3 || m[1] != "e2el" {
		t.Errorf("ParseMetrics = %v, %v", m, err)
	}
	if _, err := ParseMetrics("ttft,goodput"); err == nil {
		t.Error("ParseMetrics accepted an unknown metric")
	}
	if p, err := ParsePercentiles("50,99.9"); err != nil || len(p) != 2 || p[1] != 99.9 {
		t.Errorf("ParsePercentiles = %v, %v", p, err)
	}
	for _, bad := range []string{"101", "-1", "x", "", "NaN"} {
		if _, err := ParsePercentiles(bad); err == nil {
			t.Errorf("ParsePercentiles(%q) succeeded", bad)
		}
	}
}
