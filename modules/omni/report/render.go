package report

import (
	"io"
	"slices"
	"strings"
)

// RenderOptions configure Render.
type RenderOptions struct {
	// Metrics is the `--percentile-metrics` selection. nil is omnik's default, every
	// metric that has data; ParseMetrics(ReferenceMetrics) reproduces `vllm bench serve`.
	Metrics []string
	Stages  bool   // print the Stage Benchmark Result section (`--print-stage`)
	Title   string // section title; empty is "Serving Benchmark Result" (e.g. a scenario's name)
}

// width is the reference's line width: headers are centred in it.
const width = 50

// metricBlock describes how one `--percentile-metrics` name prints in the global part.
type metricBlock struct {
	header, label, unit string
	// skipEmpty marks the five blocks latest upstream skips without samples; the others
	// print 0.00.
	skipEmpty bool
	dist      func(*Result) Dist
}

var globalBlocks = map[string]metricBlock{
	"e2el":           {"End-to-end Latency", "E2EL", " (ms)", false, func(r *Result) Dist { return r.E2EL }},
	"ttft":           {"Time to First Token", "TTFT", " (ms)", true, func(r *Result) Dist { return r.TTFT }},
	"tpot":           {"Time per Output Token (excl. 1st token)", "TPOT", " (ms)", true, func(r *Result) Dist { return r.TPOT }},
	"itl":            {"Inter-token Latency", "ITL", " (ms)", true, func(r *Result) Dist { return r.ITL }},
	"audio_ttfp":     {"Time to First Packet", "AUDIO_TTFP", " (ms)", true, func(r *Result) Dist { return r.AudioTTFP }},
	"audio_rtf":      {"Real Time Factor", "AUDIO_RTF", "", true, func(r *Result) Dist { return r.AudioRTF }},
	"audio_duration": {"Audio Duration", "AUDIO_DURATION", " (s)", false, func(r *Result) Dist { return r.AudioDuration }},
	"audio_underrun": {"Streaming Audio Underrun", "AUDIO_UNDERRUN", " (s)", false, func(r *Result) Dist { return r.AudioUnderrun }},
}

// selection is the resolved `--percentile-metrics` list.
type selection []string

func (s selection) has(names ...string) bool {
	return slices.ContainsFunc(names, func(n string) bool { return slices.Contains(s, n) })
}

// selectMetrics resolves nil to every metric with data. Blocks that are skipped when empty
// and stage blocks gate themselves; E2EL and the underrun block would print zeros, so they
// are left out when nothing was measured.
func selectMetrics(r *Result, metrics []string) selection {
	if metrics != nil {
		return metrics
	}
	return slices.DeleteFunc(slices.Clone(metricNames), func(m string) bool {
		return m == "e2el" && r.E2EL.N == 0 || m == "audio_underrun" && r.UnderrunMeasured == 0
	})
}

// Render writes the Serving Benchmark Result block of r (and, with opts.Stages, the Stage
// Benchmark Result section) in the exact layout of `vllm bench serve --omni`.
func Render(w io.Writer, r *Result, opts RenderOptions) error {
	sel := selectMetrics(r, opts.Metrics)
	title := opts.Title
	if title == "" {
		title = "Serving Benchmark Result"
	}
	var p printer
	p.header(" "+title+" ", '=')
	p.serving(r, sel)
	if opts.Stages && (len(r.Stages) > 0 || len(r.Edges) > 0) {
		p.WriteString("\n")
		p.header(" Stage Benchmark Result ", '=')
		for i := range r.Stages {
			p.stage(&r.Stages[i], sel)
		}
		p.edges(r)
	}
	WriteRule(&p.Builder)
	_, err := io.WriteString(w, p.String())
	return err
}

// serving prints the rows and blocks of the Serving Benchmark Result under its title.
func (p *printer) serving(r *Result, sel selection) {
	p.intRow("Successful requests:", int64(r.Completed))
	p.intRow("Failed requests:", int64(r.Failed))
	if r.Interrupted > 0 {
		// omnik's row, only when there is something to say, so the layout stays vLLM's.
		p.intRow("Interrupted requests:", int64(r.Interrupted))
	}
	if r.MaxConcurrency > 0 {
		p.intRow("Maximum request concurrency:", int64(r.MaxConcurrency))
	}
	if !r.unboundedRate() {
		p.floatRow("Request rate configured (RPS):", r.RequestRate)
	}
	p.floatRow("Benchmark duration (s):", r.Duration.Seconds())
	p.floatRow("Request throughput (req/s):", r.RequestThroughput)
	if r.RequestGoodput != nil {
		p.floatRow("Request goodput (req/s):", *r.RequestGoodput)
	}
	p.floatRow("Peak concurrent requests:", float64(r.PeakConcurrency))
	p.serverBlocks(r)
	if sel.has("e2el") {
		p.metric(r, "e2el")
	}
	p.text(r, sel)
	if r.hasAudio() {
		p.audio(r, sel)
	}
	if r.Images > 0 {
		p.image(r)
	}
	if r.hasVideo() {
		p.video(r)
	}
}

func (r *Result) hasAudio() bool { return r.AudioTotalDuration > 0 || r.AudioTotalFrames > 0 }

// text prints the Text Result section as latest upstream: nothing for text-less image
// and video runs, only the input tokens for text-less speech runs (a chat run without
// text keeps its zero rows, as the reference's chat backend does).
func (p *printer) text(r *Result, sel selection) {
	if r.TotalOutput <= 0 && (r.Images > 0 || r.hasVideo()) {
		return
	}
	p.header(" Text Result ", '=')
	p.intRow("Total input tokens:", int64(r.TotalInput))
	if r.TotalOutput <= 0 && r.SpeechOnly {
		return
	}
	p.intRow("Total generated tokens:", int64(r.TotalOutput))
	p.floatRow("Output token throughput (tok/s):", r.OutputThroughput)
	p.floatRow("Peak output token throughput (tok/s):", r.PeakOutputTokens)
	p.floatRow("Peak concurrent requests:", float64(r.PeakConcurrency))
	p.floatRow("Total Token throughput (tok/s):", r.TotalTokenThroughput)
	if r.TotalOutput <= 0 {
		return
	}
	if sel.has("ttft") {
		p.metric(r, "ttft")
	}
	if sel.has("tpot", "tpop") {
		p.metric(r, "tpot")
	}
	if sel.has("itl") {
		p.metric(r, "itl")
	}
}

func (p *printer) audio(r *Result, sel selection) {
	p.header(" Audio Result ", '=')
	p.floatRow("Total audio duration generated(s):", r.AudioTotalDuration)
	p.intRow("Total audio frames generated:", r.AudioTotalFrames)
	p.floatRow("Audio throughput(audio duration/s):", r.AudioThroughput)
	p.percentRow("Streaming continuity OK rate:", r.ContinuityOKRate)
	for _, m := range sel {
		if strings.HasPrefix(m, "audio") {
			p.metric(r, m)
		}
	}
}

func (p *printer) image(r *Result) {
	p.header(" Image Result ", '=')
	p.intRow("Total images generated:", int64(r.Images))
	p.floatRow("Image throughput (img/s):", r.ImageThroughput)
	p.floatRow("Average pixels per image:", r.AvgPixels)
	if r.MeanDenoiseStepMS > 0 {
		p.floatRow("Mean denoise step latency (ms):", r.MeanDenoiseStepMS)
	}
	// The seed prints this title without the spaces latest upstream added.
	if r.ImageGeneration.Mean > 0 {
		p.dist("Image Generation", "IMAGE_GENERATION", " (ms)", r.ImageGeneration)
	}
}

// metric prints the global block of one metric name.
func (p *printer) metric(r *Result, name string) {
	b := globalBlocks[name]
	d := b.dist(r)
	if b.skipEmpty && d.N == 0 {
		return
	}
	p.dist(b.header, b.label, b.unit, d)
}
