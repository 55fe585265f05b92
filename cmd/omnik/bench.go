package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/omnik-dev/omnik/engine"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// benchFlags are `vllm bench serve --omni`'s flags, same names and meanings, plus
// omnik's own (--threshold, --out, --summary-export, --mock, --print-script).
type benchFlags struct {
	baseURL, host, endpoint, backend string
	port                             int
	model, servedModelName           string
	datasetName, datasetPath         string
	numPrompts                       int
	randomInputLen, randomOutputLen  int
	randomRangeRatio                 float64
	requestRate                      string
	burstiness                       float64
	maxConcurrency                   int
	seed                             int64
	numWarmups                       int
	percentileMetrics                string
	metricPercentiles                string
	printStage                       bool
	goodput                          []string
	extraBody                        string
	ignoreEOS                        bool
	saveResult, saveDetailed         bool
	resultDir, resultFilename, label string
	metadata                         []string
	omni                             bool
	printScript                      bool
	run                              runFlags
}

func newBenchCommand() *cobra.Command {
	var f benchFlags
	cmd := &cobra.Command{
		Use:   "bench [flags]",
		Short: "A drop-in for `vllm bench serve --omni`, run on omnik's engine",
		Long: `Takes vllm bench serve's flags and prints the same Serving (and, with --print-stage,
Stage) Benchmark Result blocks and --save-result file. It builds a scenario (an embedded
script using the poisson-arrival-rate executor) and runs it like omnik run;
--print-script prints that script so you can start scripting from it. docs/bench.md.`,
		RunE: func(cmd *cobra.Command, args []string) error { return runBench(cmd, &f, args) },
	}
	f.register(cmd.Flags())
	cmd.SetFlagErrorFunc(unsupportedVLLMFlag)
	return cmd
}

func (f *benchFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.baseURL, "base-url", "", "server URL (overrides --host/--port)")
	fs.StringVar(&f.host, "host", "127.0.0.1", "server host")
	fs.IntVar(&f.port, "port", 8000, "server port")
	fs.StringVar(&f.endpoint, "endpoint", "/v1/chat/completions", "API path: /v1/chat/completions, /v1/images/generations, /v1/images/edits, /v1/audio/speech")
	fs.StringVar(&f.backend, "backend", "", "openai-chat-omni, openai-audio-speech, openai-image-edits-omni (default: from --endpoint)")
	fs.StringVar(&f.model, "model", "", "model id (default: the first of GET /v1/models)")
	fs.StringVar(&f.servedModelName, "served-model-name", "", "model name sent in requests (default: --model)")
	fs.StringVar(&f.datasetName, "dataset-name", "random", "random, random-mm, sharegpt or custom")
	fs.StringVar(&f.datasetPath, "dataset-path", "", "dataset file (sharegpt JSON, custom JSONL)")
	fs.IntVar(&f.numPrompts, "num-prompts", 1000, "number of requests")
	fs.IntVar(&f.randomInputLen, "random-input-len", 1024, "random dataset: input tokens")
	fs.IntVar(&f.randomOutputLen, "random-output-len", 128, "random dataset: output tokens")
	fs.Float64Var(&f.randomRangeRatio, "random-range-ratio", 0, "random dataset: lengths vary by ±ratio")
	fs.StringVar(&f.requestRate, "request-rate", "inf", "requests per second, or inf (all at once)")
	fs.Float64Var(&f.burstiness, "burstiness", 1, "gamma shape of the gaps: 1 = Poisson, <1 burstier, >1 steadier")
	fs.IntVar(&f.maxConcurrency, "max-concurrency", 0, "most requests in flight (default: no cap)")
	fs.Int64Var(&f.seed, "seed", 0, "random seed (dataset and arrivals)")
	fs.IntVar(&f.numWarmups, "num-warmups", 0, "requests sent before the benchmark and left out of it")
	fs.StringVar(&f.percentileMetrics, "percentile-metrics", "ttft,tpot,itl", "metrics with percentile rows")
	fs.StringVar(&f.metricPercentiles, "metric-percentiles", "99", "percentiles to print")
	fs.BoolVar(&f.printStage, "print-stage", false, "ask for stage metrics and print the Stage Benchmark Result")
	fs.StringArrayVar(&f.goodput, "goodput", nil, "SLOs KEY:ms (ttft, tpot, e2el, ttfc, audio_ttfp); repeatable or space-separated")
	fs.StringVar(&f.extraBody, "extra-body", "", "JSON object merged into every request body")
	fs.BoolVar(&f.ignoreEOS, "ignore-eos", false, "send ignore_eos: true")
	fs.BoolVar(&f.saveResult, "save-result", false, "write the result JSON")
	fs.BoolVar(&f.saveDetailed, "save-detailed", false, "add per-request arrays to the result JSON")
	fs.StringVar(&f.resultDir, "result-dir", "", "directory of the result file")
	fs.StringVar(&f.resultFilename, "result-filename", "", "result file name (default: vllm's pattern)")
	fs.StringVar(&f.label, "label", "", "label in the result file and its name")
	fs.StringArrayVar(&f.metadata, "metadata", nil, "KEY=VALUE added to the result file; repeatable")
	fs.BoolVar(&f.omni, "omni", true, "accepted for compatibility (omnik is always omni)")
	fs.BoolVar(&f.printScript, "print-script", false, "print the scenario script this command runs, and exit")
	fs.StringArrayVar(&f.run.thresholds, "threshold", nil, "threshold EXPR (repeatable; exit 99 when one fails)")
	fs.StringArrayVarP(&f.run.outs, "out", "o", nil, "json=FILE or csv=FILE (repeatable)")
	fs.StringVar(&f.run.summaryExport, "summary-export", "", "write the summary as JSON to FILE")
	fs.BoolVar(&f.run.omni.mock, "mock", false, "benchmark the built-in simulated vLLM-Omni server")
	fs.BoolVarP(&f.run.quiet, "quiet", "q", false, "no progress output")
}

// unsupportedVLLMFlags are vllm bench serve flags omnik does not implement, with why.
var unsupportedVLLMFlags = map[string]string{
	"tokenizer":               "omnik takes token counts from the server's usage (no client tokenizer)",
	"tokenizer-mode":          "omnik takes token counts from the server's usage (no client tokenizer)",
	"trust-remote-code":       "omnik loads no model code",
	"use-beam-search":         "not supported by omnik",
	"logprobs":                "not supported by omnik; pass it with --extra-body",
	"profile":                 "server profiling is not driven by omnik",
	"ramp-up-strategy":        "use omnik run with a ramping-arrival-rate scenario (omnik bench --print-script is a start)",
	"ramp-up-start-rps":       "use omnik run with a ramping-arrival-rate scenario",
	"ramp-up-end-rps":         "use omnik run with a ramping-arrival-rate scenario",
	"request-id-prefix":       "not supported by omnik",
	"disable-tqdm":            "omnik prints a progress line; use --quiet",
	"hf-split":                "Hugging Face datasets cannot be downloaded here; use --dataset-name custom",
	"hf-subset":               "Hugging Face datasets cannot be downloaded here; use --dataset-name custom",
	"hf-output-len":           "Hugging Face datasets cannot be downloaded here; use --dataset-name custom",
	"sharegpt-output-len":     "not supported by omnik",
	"temperature":             "pass sampling parameters with --extra-body '{\"temperature\":0}'",
	"top-p":                   "pass sampling parameters with --extra-body",
	"top-k":                   "pass sampling parameters with --extra-body",
	"min-p":                   "pass sampling parameters with --extra-body",
	"random-prefix-len":       "not supported by omnik",
	"ready-check-timeout-sec": "omnik does not wait for the server to come up",
}

// unsupportedVLLMFlag names a known vllm flag omnik lacks, instead of cobra's bare message.
func unsupportedVLLMFlag(_ *cobra.Command, err error) error {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		name, _, _ := strings.Cut(rest, "=")
		if why, known := unsupportedVLLMFlags[name]; known {
			msg = fmt.Sprintf("--%s is a vllm bench serve flag omnik does not support: %s", name, why)
		}
	}
	return &engine.OptionsError{Msg: msg}
}

// rate parses --request-rate: a positive number or inf.
func (f *benchFlags) rate() (float64, error) {
	if strings.EqualFold(f.requestRate, "inf") {
		return math.Inf(1), nil
	}
	r, err := strconv.ParseFloat(f.requestRate, 64)
	if err != nil || !(r > 0) || math.IsInf(r, 0) {
		return 0, &engine.OptionsError{Msg: fmt.Sprintf("--request-rate %q: want a positive number or inf", f.requestRate)}
	}
	return r, nil
}

// backendFor infers --backend from --endpoint as vllm bench serve --omni does.
func backendFor(endpoint string) (string, error) {
	switch endpoint {
	case "/v1/chat/completions":
		return "openai-chat-omni", nil
	case "/v1/audio/speech":
		return "openai-audio-speech", nil
	case "/v1/images/edits":
		return "openai-image-edits-omni", nil
	case "/v1/images/generations":
		return "openai-images-omni", nil
	}
	return "", &engine.OptionsError{Msg: fmt.Sprintf("--endpoint %q: omnik bench supports /v1/chat/completions, /v1/images/generations, /v1/images/edits and /v1/audio/speech", endpoint)}
}
