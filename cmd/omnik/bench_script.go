package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/js"
)

// benchJS is the scenario omnik bench runs, the same for every flag: the flags reach it
// as data (the omnik/bench module), and its options as the script's options layer.
//
//go:embed bench.js
var benchJS string

// benchImport is the line of benchJS that --print-script replaces with the parameters.
const benchImport = "import bench from 'omnik/bench';\n"

// benchBackends are the --backend values, each a sender of benchJS.
var benchBackends = []string{"openai-audio-speech", "openai-chat-omni", "openai-image-edits-omni", "openai-images-omni"}

// benchPlan is what `omnik bench` turns its flags into: the scenario's parameters and
// options, and the values the summary and the result file need.
type benchPlan struct {
	params  benchParams
	options map[string]any
	baseURL string
	backend string
	rate    float64
	model   string
}

// benchParams are what benchJS reads from omnik/bench.
type benchParams struct {
	Backend            string         `json:"backend"`
	Dataset            datasetSpec    `json:"dataset"`
	ExtraBody          map[string]any `json:"extraBody"`
	Warmups            int            `json:"warmups"`
	ReturnStageMetrics bool           `json:"returnStageMetrics"`
	IgnoreEOS          bool           `json:"ignoreEOS"`
}

// datasetSpec is the JSON the script hands to omnik/data's dataset().
type datasetSpec struct {
	Name             string  `json:"name"`
	Path             string  `json:"path,omitempty"`
	NumPrompts       int     `json:"numPrompts"`
	RandomInputLen   int     `json:"randomInputLen"`
	RandomOutputLen  int     `json:"randomOutputLen"`
	RandomRangeRatio float64 `json:"randomRangeRatio"`
	Seed             int64   `json:"seed"`
	// Calibrate sizes random prompts with the server's /tokenize, when it has one.
	Calibrate bool `json:"calibrate,omitempty"`
}

func (f *benchFlags) plan() (*benchPlan, error) {
	p := &benchPlan{backend: f.backend}
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
	switch {
	case f.numPrompts < 1:
		return nil, &engine.OptionsError{Msg: "--num-prompts must be at least 1"}
	case f.maxConcurrency < 0:
		return nil, &engine.OptionsError{Msg: "--max-concurrency must not be negative"}
	case !(f.burstiness > 0) || math.IsInf(f.burstiness, 1):
		return nil, &engine.OptionsError{Msg: "--burstiness must be a positive number"}
	case math.IsNaN(f.randomRangeRatio) || math.IsInf(f.randomRangeRatio, 0):
		return nil, &engine.OptionsError{Msg: "--random-range-ratio must be a number in [0, 1)"}
	case f.numWarmups < 0:
		return nil, &engine.OptionsError{Msg: "--num-warmups must not be negative"}
	}
	extra := map[string]any{}
	if f.extraBody != "" {
		if err := json.Unmarshal([]byte(f.extraBody), &extra); err != nil {
			return nil, &engine.OptionsError{Msg: fmt.Sprintf("--extra-body: want a JSON object: %v", err)}
		}
	}
	p.baseURL = f.baseURL
	if p.baseURL == "" {
		p.baseURL = fmt.Sprintf("http://%s:%d", f.host, f.port)
	}
	if f.datasetPath != "" {
		if f.datasetPath, err = filepath.Abs(f.datasetPath); err != nil {
			return nil, err
		}
	}
	p.model = f.servedModelName
	if p.model == "" {
		p.model = f.model
	}
	p.params = benchParams{Backend: p.backend, ExtraBody: extra, Warmups: f.numWarmups, ReturnStageMetrics: f.printStage,
		// Only chat has an end of sequence to ignore.
		IgnoreEOS: f.ignoreEOS && p.backend == "openai-chat-omni",
		Dataset: datasetSpec{Calibrate: f.datasetName == "random" || f.datasetName == "random-mm",
			Name: f.datasetName, Path: f.datasetPath, NumPrompts: f.numPrompts,
			RandomInputLen: f.randomInputLen, RandomOutputLen: f.randomOutputLen,
			RandomRangeRatio: f.randomRangeRatio, Seed: f.seed}}
	p.options = benchOptions(p, f)
	return p, nil
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
	return map[string]any{"scenarios": map[string]any{"bench": scenario}, "omni": omniOpts}
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
	params := "\n// omnik bench's flags, as the scenario below reads them.\nconst bench = " + mustJSON(p.params) +
		";\n\nexport const options = " + mustJSONIndent(p.options) + ";\n"
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
