package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"github.com/omnik-dev/omnik/modules/httpdebug"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/js"
	"github.com/omnik-dev/omnik/modules/omni"
	"github.com/omnik-dev/omnik/modules/tlsclient"
)

// benchJS is the scenario omnik bench runs, the same for every flag: the flags reach it
// as data (the omnik/bench module), and its options as the script's options layer.
//
//go:embed bench.js
var benchJS string

// benchImport is the line of benchJS that --print-script replaces with the parameters.
const benchImport = "import bench from 'omnik/bench';\n"

// benchBackends are the --backend values, each a sender of benchJS.
var benchBackends = []string{"openai-audio-speech", "openai-chat-omni", backendImageEdits, "openai-images-omni", "openai-videos-omni"}

// benchPlan is what `omnik bench` turns its flags into: the scenario's parameters and
// options, and the values the summary and the result file need.
type benchPlan struct {
	params  benchParams
	options map[string]any
	baseURL string
	backend string
	rate    float64
	model   string
	headers map[string]string
	// outcomes counts the benchmark's requests, from the record stream.
	outcomes *outcomes
}

// benchParams are what benchJS reads from omnik/bench.
type benchParams struct {
	Backend            string         `json:"backend"`
	Dataset            datasetSpec    `json:"dataset"`
	ExtraBody          map[string]any `json:"extraBody"`
	Warmups            int            `json:"warmups"`
	ReturnStageMetrics bool           `json:"returnStageMetrics"`
	IgnoreEOS          bool           `json:"ignoreEOS"`
	// InitialTest sends the first sample before the benchmark, as vllm bench serve does;
	// ReadyTimeout > 0 retries it for that many seconds until it succeeds.
	InitialTest  bool `json:"initialTest"`
	ReadyTimeout int  `json:"readyTimeout"`
}

func (f *benchFlags) plan() (*benchPlan, error) {
	p := &benchPlan{backend: f.backend, outcomes: &outcomes{}}
	var err error
	if p.backend == "" {
		if p.backend, err = backendFor(f.endpoint); err != nil {
			return nil, err
		}
	} else if _, err := backendFor(f.endpoint); err != nil {
		return nil, err
	} else if !slices.Contains(benchBackends, p.backend) {
		return nil, &engine.OptionsError{Msg: fmt.Sprintf("--backend %q: omnik bench supports %s", p.backend, strings.Join(benchBackends, ", "))}
	}
	if p.rate, err = f.rate(); err != nil {
		return nil, err
	}
	if err := f.validate(); err != nil {
		return nil, err
	}
	extra, err := f.body(p.backend)
	if err != nil {
		return nil, err
	}
	if p.headers, err = f.headerMap(); err != nil {
		return nil, err
	}
	p.baseURL = f.baseURL
	if p.baseURL == "" {
		p.baseURL = fmt.Sprintf("http://%s:%d", f.host, f.port)
	}
	p.model = f.servedModelName
	if p.model == "" {
		p.model = f.model
	}
	ds, err := f.dataset()
	if err != nil {
		return nil, err
	}
	p.params = benchParams{Backend: p.backend, ExtraBody: extra, Warmups: f.numWarmups, ReturnStageMetrics: f.printStage,
		// Only chat has an end of sequence to ignore.
		IgnoreEOS: f.ignoreEOS && p.backend == "openai-chat-omni", Dataset: ds,
		// --ready-check-timeout-sec 0 skips the test request, as in vllm.
		InitialTest: !f.fs.Changed("ready-check-timeout-sec") || f.readyCheckTimeout > 0, ReadyTimeout: f.readyCheckTimeout}
	p.options = benchOptions(p, f)
	return p, nil
}

// headerMap is --header's KEY=VALUE pairs, trimmed of spaces as vllm trims them.
func (f *benchFlags) headerMap() (map[string]string, error) {
	pairs, err := keyValues("--header", f.headers)
	headers := make(map[string]string, len(pairs))
	for k, v := range pairs {
		headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return headers, err
}

// validate checks the flags that take a range.
func (f *benchFlags) validate() error {
	switch {
	case f.numPrompts < 1:
		return &engine.OptionsError{Msg: "--num-prompts must be at least 1"}
	case f.maxConcurrency < 0:
		return &engine.OptionsError{Msg: "--max-concurrency must not be negative"}
	case !(f.burstiness > 0) || math.IsInf(f.burstiness, 1):
		return &engine.OptionsError{Msg: "--burstiness must be a positive number"}
	case math.IsNaN(f.randomRangeRatio) || math.IsInf(f.randomRangeRatio, 0):
		return &engine.OptionsError{Msg: "--random-range-ratio must be a number in [0, 1)"}
	case f.numWarmups < 0:
		return &engine.OptionsError{Msg: "--num-warmups must not be negative"}
	case f.readyCheckTimeout < 0:
		return &engine.OptionsError{Msg: "--ready-check-timeout-sec must not be negative"}
	case f.sharegptOutputLen < 0:
		return &engine.OptionsError{Msg: "--sharegpt-output-len must not be negative"}
	case f.customOutputLen < 1 && f.customOutputLen != -1:
		return &engine.OptionsError{Msg: "--custom-output-len must be positive, or -1 for each line's output_tokens"}
	}
	return nil
}

// body is what every request body gets beyond the sample: the sampling flags, then
// --extra-body over them (as vllm merges them), and the edits' bot_task.
func (f *benchFlags) body(backend string) (map[string]any, error) {
	body := samplingBody(f.fs)
	if f.extraBody != "" {
		var extra map[string]any
		if err := json.Unmarshal([]byte(f.extraBody), &extra); err != nil {
			return nil, &engine.OptionsError{Msg: fmt.Sprintf("--extra-body: want a JSON object: %v", err)}
		}
		maps.Copy(body, extra)
	}
	if _, set := body["bot_task"]; f.botTask != "" && backend == backendImageEdits && !set {
		body["bot_task"] = f.botTask
	}
	return body, nil
}

// benchOptions are the scenario's options: vllm's traffic on the poisson-arrival-rate
// executor.
func benchOptions(p *benchPlan, f *benchFlags) map[string]any {
	maxVUs := f.maxConcurrency
	if maxVUs == 0 {
		maxVUs = f.numPrompts // no cap: one VU per request at most
	}
	rate := any(p.rate)
	if math.IsInf(p.rate, 1) {
		rate = "inf"
	}
	scenario := map[string]any{
		"executor": "poisson-arrival-rate", "rate": rate, "timeUnit": "1s",
		"burstiness": f.burstiness, "iterations": f.numPrompts, "seed": f.seed,
		"maxVUs": maxVUs, "preAllocatedVUs": min(maxVUs, 64),
	}
	omniOpts := map[string]any{"baseURL": p.baseURL}
	if p.model != "" {
		omniOpts["model"] = p.model
	}
	if len(p.headers) > 0 {
		omniOpts["headers"] = p.headers
	}
	// Written into the options too, so --print-script's script keeps them.
	tls := f.run.omni.tls
	if tls.insecure {
		omniOpts["insecureSkipTLSVerify"] = true
	}
	if tls.files != (tlsclient.Files{}) {
		omniOpts["tls"] = tls.files
	}
	// setup sends the initial test request (retried up to --ready-check-timeout-sec) and
	// the warmups one after another, each within the request timeout (a video job's poll
	// timeout): the default setup timeout of 60 s would cut a slow server short.
	setup := time.Duration(f.readyCheckTimeout)*time.Second + time.Duration(1+f.numWarmups)*p.requestTimeout()
	return map[string]any{"scenarios": map[string]any{"bench": scenario}, "omni": omniOpts, "setupTimeout": setup.String()}
}

// module is omnik/bench: the parameters as plain script values, a copy for each VU, so
// no runtime shares a value with another.
func (p *benchPlan) module() js.Option {
	raw := mustJSON(p.params)
	return js.WithModule("omnik/bench", func(vu *js.VU) (*js.Exports, error) {
		var params map[string]any
		if err := json.Unmarshal([]byte(raw), &params); err != nil {
			return nil, err
		}
		return &js.Exports{Default: vu.Runtime().ToValue(params), Named: map[string]any{}}, nil
	})
}

// printed is benchJS as a standalone script, for --print-script: the parameters and
// options written in, so `omnik run` of it sends the same requests.
func (p *benchPlan) printed(cmdline string) string {
	head := "// Generated by: " + cmdline + "\n// Run it with: omnik run [--mock] THIS_FILE\n"
	// A credential in --header or in the URL is never written out; OMNI_API_KEY or an
	// edit puts it back.
	options := maps.Clone(p.options)
	omniOpts := maps.Clone(options["omni"].(map[string]any))
	omniOpts["baseURL"] = redactURLArg(p.baseURL)
	if len(p.headers) > 0 {
		headers := make(map[string]string, len(p.headers))
		for k, v := range p.headers {
			headers[k] = httpdebug.RedactHeader(k, v)
		}
		omniOpts["headers"] = headers
	}
	options["omni"] = omniOpts
	params := "\n// omnik bench's flags, as the scenario below reads them.\nconst bench = " + mustJSON(p.params) +
		";\n\nexport const options = " + mustJSONIndent(options) + ";\n"
	return head + strings.Replace(benchJS, benchImport, params, 1)
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func mustJSONIndent(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// defaultPollTimeout is the reference's poll_timeout_s default, bench.js's too.
const defaultPollTimeout = 6 * time.Hour

// requestTimeout bounds one request of the plan in setup: the client's timeout, or a
// video job's poll_timeout_s when longer (from the extra body, as bench.js reads it).
func (p *benchPlan) requestTimeout() time.Duration {
	if p.backend != "openai-videos-omni" {
		return omni.DefaultTimeout
	}
	s, ok := p.params.ExtraBody["poll_timeout_s"].(float64)
	if !ok || !(s > 0 && s < float64(math.MaxInt64/int64(time.Second))) {
		return defaultPollTimeout
	}
	return max(time.Duration(s*float64(time.Second)), omni.DefaultTimeout)
}
