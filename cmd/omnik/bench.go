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
	fs                               *pflag.FlagSet
	baseURL, host, endpoint, backend string
	port                             int
	headers                          []string
	model, servedModelName           string
	datasetName, datasetPath         string
	numPrompts                       int
	inputLen, outputLen              int
	randomInputLen, randomOutputLen  int
	randomRangeRatio                 float64
	randomPrefixLen                  int
	sharegptOutputLen                int
	customOutputLen                  int
	disableShuffle                   bool
	mm                               mmFlags
	requestRate                      string
	burstiness                       float64
	maxConcurrency                   int
	seed                             int64
	readyCheckTimeout                int
	numWarmups                       int
	percentileMetrics                string
	metricPercentiles                string
	printStage                       bool
	goodput                          []string
	extraBody                        string
	ignoreEOS                        bool
	botTask                          string
	saveResult, saveDetailed         bool
	appendResult                     bool
	resultDir, resultFilename, label string
	metadata                         []string
	omni                             bool
	disableTQDM                      bool
	printScript                      bool
	run                              runFlags
}

// mmFlags are the --random-mm-* flags.
type mmFlags struct {
	baseItems       int
	itemsRangeRatio float64
	limits, buckets string
}

func newBenchCommand() *cobra.Command {
	var f benchFlags
	cmd := &cobra.Command{
		Use:   "bench [flags]",
		Short: "A drop-in for `vllm bench serve --omni`, run on omnik's engine",
		Long: `Takes vllm bench serve's flags and prints the same Serving (and, with --print-stage,
Stage) Benchmark Result blocks and --save-result file. It builds a scenario (an embedded
script using the poisson-arrival-rate executor) and runs it like omnik run;
--print-script prints that script so you can start scripting from it. vllm flags that
change nothing omnik measures are accepted and ignored; docs/bench.md lists them.`,
		// vllm's lists (`--goodput ttft:500 tpot:50`) need the arguments in order, which
		// cobra's parser does not keep: parseBenchFlags parses them.
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			err := parseBenchFlags(cmd.Flags(), args)
			if stray := f.run.omni.servers.strayURL(cmd.Flags().Args()); stray != nil {
				return stray
			}
			if err != nil {
				return err
			}
			if help, _ := cmd.Flags().GetBool("help"); help {
				return cmd.Help()
			}
			return runBench(cmd, &f)
		},
	}
	f.register(cmd.Flags())
	return cmd
}

func (f *benchFlags) register(fs *pflag.FlagSet) {
	f.fs = fs
	fs.SetNormalizeFunc(vllmName)
	fs.StringVar(&f.baseURL, "base-url", "", "server URL (overrides --host/--port)")
	fs.StringVar(&f.host, "host", "127.0.0.1", "server host")
	fs.IntVar(&f.port, "port", 8000, "server port")
	fs.StringVar(&f.endpoint, "endpoint", "/v1/chat/completions", "API path: /v1/chat/completions, /v1/images/generations, /v1/images/edits, /v1/audio/speech, /v1/videos")
	fs.StringVar(&f.backend, "backend", "", "openai-chat-omni, openai-audio-speech, openai-image-edits-omni, openai-images-omni, openai-videos-omni (default: from --endpoint)")
	fs.StringArrayVar(&f.headers, "header", nil, "KEY=VALUE header sent with every request; repeatable or space-separated")
	fs.BoolVar(&f.run.omni.tls.insecure, "insecure", false, "accept any TLS certificate (self-signed servers): --insecure-skip-tls-verify")
	f.run.omni.tls.register(fs)
	f.run.omni.servers.register(fs)
	fs.StringVar(&f.model, "model", "", "model id (default: the first of GET /v1/models)")
	fs.StringVar(&f.servedModelName, "served-model-name", "", "model name sent in requests (default: --model)")
	fs.StringVar(&f.datasetName, "dataset-name", "random", "random, random-mm, sharegpt or custom")
	fs.StringVar(&f.datasetPath, "dataset-path", "", "dataset file (sharegpt JSON, custom JSONL)")
	fs.IntVar(&f.numPrompts, "num-prompts", 1000, "number of requests")
	fs.IntVar(&f.inputLen, "input-len", 0, "sets --random-input-len")
	fs.IntVar(&f.outputLen, "output-len", 0, "sets --random-output-len, --sharegpt-output-len and --custom-output-len")
	fs.IntVar(&f.randomInputLen, "random-input-len", 1024, "random datasets: input tokens")
	fs.IntVar(&f.randomOutputLen, "random-output-len", 128, "random datasets: output tokens")
	fs.Float64Var(&f.randomRangeRatio, "random-range-ratio", 0, "random datasets: lengths vary by ±ratio")
	fs.IntVar(&f.randomPrefixLen, "random-prefix-len", 0, "random datasets: tokens of a prefix every prompt starts with")
	fs.IntVar(&f.sharegptOutputLen, "sharegpt-output-len", 0, "sharegpt: output tokens of every request (default: the reply's length)")
	fs.IntVar(&f.customOutputLen, "custom-output-len", -1, "custom: output tokens of every line (-1: each line's output_tokens, else 256)")
	fs.BoolVar(&f.disableShuffle, "disable-shuffle", false, "send the dataset's samples in order instead of shuffled")
	fs.IntVar(&f.mm.baseItems, "random-mm-base-items-per-request", 1, "random-mm: mean media items per request")
	fs.Float64Var(&f.mm.itemsRangeRatio, "random-mm-num-mm-items-range-ratio", 0, "random-mm: item counts vary by ±ratio, in [0, 1]")
	fs.StringVar(&f.mm.limits, "random-mm-limit-mm-per-prompt", "", `random-mm: items per modality at most, JSON like {"image": 3, "audio": 1} (default image 255, video 1, audio 255)`)
	fs.StringVar(&f.mm.buckets, "random-mm-bucket-config", "", "random-mm: item shapes {(H, W, T): p, …}, H 0 for audio of W seconds (default: 256x256 and 1280x720 images)")
	fs.StringVar(&f.requestRate, "request-rate", "inf", "requests per second, or inf (all at once)")
	fs.Float64Var(&f.burstiness, "burstiness", 1, "gamma shape of the gaps: 1 = Poisson, <1 burstier, >1 steadier")
	fs.IntVar(&f.maxConcurrency, "max-concurrency", 0, "most requests in flight (default: no cap)")
	fs.Int64Var(&f.seed, "seed", 0, "random seed (dataset and arrivals)")
	fs.IntVar(&f.readyCheckTimeout, "ready-check-timeout-sec", 0, "retry the initial test request for up to N s until it succeeds; 0 skips it (default: one try)")
	fs.IntVar(&f.numWarmups, "num-warmups", 0, "requests sent before the benchmark and left out of it")
	fs.StringVar(&f.percentileMetrics, "percentile-metrics", "ttft,tpot,itl", "metrics with percentile rows")
	fs.StringVar(&f.metricPercentiles, "metric-percentiles", "99", "percentiles to print")
	fs.BoolVar(&f.printStage, "print-stage", false, "ask for stage metrics and print the Stage Benchmark Result")
	fs.StringArrayVar(&f.goodput, "goodput", nil, "SLOs KEY:ms (ttft, tpot, e2el, ttfc, audio_ttfp); repeatable or space-separated")
	registerSampling(fs)
	fs.StringVar(&f.extraBody, "extra-body", "", "JSON object merged into every request body (over the sampling flags)")
	fs.BoolVar(&f.ignoreEOS, "ignore-eos", false, "send ignore_eos: true")
	fs.StringVar(&f.botTask, "image-edits-bot-task", "", "bot_task form field of image edits (default: none sent)")
	fs.BoolVar(&f.saveResult, "save-result", false, "write the result JSON")
	fs.BoolVar(&f.saveDetailed, "save-detailed", false, "add per-request arrays to the result JSON")
	fs.BoolVar(&f.appendResult, "append-result", false, "append the result JSON to the result file, one object a line")
	fs.StringVar(&f.resultDir, "result-dir", "", "directory of the result file")
	fs.StringVar(&f.resultFilename, "result-filename", "", "result file name (default: vllm's pattern)")
	fs.StringVar(&f.label, "label", "", "label in the result file and its name")
	fs.StringArrayVar(&f.metadata, "metadata", nil, "KEY=VALUE added to the result file; repeatable or space-separated")
	fs.BoolVar(&f.omni, "omni", true, "accepted for compatibility (omnik is always omni)")
	fs.BoolVar(&f.disableTQDM, "disable-tqdm", false, "no progress output (as --quiet)")
	fs.BoolVar(&f.printScript, "print-script", false, "print the scenario script this command runs, and exit")
	fs.StringArrayVar(&f.run.thresholds, "threshold", nil, "threshold EXPR (repeatable; exit 99 when one fails)")
	fs.StringArrayVarP(&f.run.outs, "out", "o", nil, "json=FILE, csv=FILE, html=FILE (the HTML report) or prometheus=URL[,key=value…] (live, by remote write) (repeatable)")
	fs.StringVar(&f.run.summaryExport, "summary-export", "", "write the summary as JSON to FILE")
	fs.BoolVar(&f.run.omni.mock, "mock", false, "benchmark the built-in simulated vLLM-Omni server")
	fs.BoolVarP(&f.run.quiet, "quiet", "q", false, "no progress output")
	registerHTTPDebug(fs, &f.run.httpDebug)
	registerIgnoredVLLMFlags(fs)
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
		return backendImageEdits, nil
	case "/v1/images/generations":
		return "openai-images-omni", nil
	case "/v1/videos":
		return "openai-videos-omni", nil
	}
	return "", &engine.OptionsError{Msg: fmt.Sprintf("--endpoint %q: omnik bench supports /v1/chat/completions, /v1/images/generations, /v1/images/edits, /v1/audio/speech and /v1/videos", endpoint)}
}

// backendImageEdits is the backend that sends input images.
const backendImageEdits = "openai-image-edits-omni"
