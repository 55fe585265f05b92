package main

import (
	"fmt"
	"strings"

	"github.com/omnik-dev/omnik/engine"
	"github.com/spf13/pflag"
)

// The command line of `vllm bench serve --omni`, as omnik bench reads it: vllm's
// spellings (`--num_prompts`, space-separated lists), the flags it accepts without
// acting on them, and the ones it refuses by name. docs/bench.md has the table.

// parseBenchFlags parses vllm's command line into fs, which takes flags only.
func parseBenchFlags(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(expandLists(args)); err != nil {
		return unsupportedVLLMFlag(err)
	}
	if rest := fs.Args(); len(rest) > 0 {
		return &engine.OptionsError{Msg: fmt.Sprintf("unexpected argument %q: omnik bench takes flags only (KEY:ms after --goodput, KEY=VALUE after --metadata or --header)", rest[0])}
	}
	return nil
}

// vllmName reads a flag name as vllm's parser does: --num_prompts is --num-prompts.
func vllmName(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	return pflag.NormalizedName(strings.ReplaceAll(name, "_", "-"))
}

// listFlags take vllm's space-separated lists (argparse's nargs).
var listFlags = map[string]bool{"goodput": true, "metadata": true, "header": true}

// expandLists repeats a list flag before each of its items, `--goodput a b` becoming
// `--goodput a --goodput b`, so the flag parser reads every item.
func expandLists(args []string) []string {
	out := make([]string, 0, len(args))
	list, hasItem := "", false // the list flag being read, and whether it has an item yet
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			name, _, inline := strings.Cut(a, "=")
			list, hasItem = "", false
			if listFlags[string(vllmName(nil, strings.TrimLeft(name, "-")))] {
				list, hasItem = name, inline
			}
		} else if list != "" {
			if hasItem {
				out = append(out, list)
			}
			hasItem = true
		}
		out = append(out, a)
	}
	return out
}

// samplingFlags are vllm's sampling parameters: each one given goes into every request
// body, under --extra-body.
var samplingFlags = []struct {
	flag, key string
	integer   bool
}{
	{"temperature", "temperature", false}, {"top-p", "top_p", false}, {"top-k", "top_k", true},
	{"min-p", "min_p", false}, {"frequency-penalty", "frequency_penalty", false},
	{"presence-penalty", "presence_penalty", false}, {"repetition-penalty", "repetition_penalty", false},
}

func registerSampling(fs *pflag.FlagSet) {
	for _, s := range samplingFlags {
		help := "sampling parameter " + s.key + " of every request"
		if s.integer {
			fs.Int(s.flag, 0, help)
		} else {
			fs.Float64(s.flag, 0, help)
		}
	}
}

// samplingBody is the sampling parameters given on the command line, as body fields.
func samplingBody(fs *pflag.FlagSet) map[string]any {
	body := map[string]any{}
	for _, s := range samplingFlags {
		if !fs.Changed(s.flag) {
			continue
		}
		if s.integer {
			body[s.key], _ = fs.GetInt(s.flag)
		} else {
			body[s.key], _ = fs.GetFloat64(s.flag)
		}
	}
	return body
}

// ignoredVLLMFlags change nothing omnik measures: omnik bench accepts and ignores them,
// so existing command lines keep working.
var ignoredVLLMFlags = []struct {
	why      string
	values   []string // flags that take a value
	switches []string // flags that take none
}{
	{why: "omnik has no client tokenizer: token counts come from the server, random prompts are sized with its /tokenize",
		values: []string{"tokenizer", "tokenizer-mode"}, switches: []string{"trust-remote-code", "skip-tokenizer-init"}},
	{why: "omnik sends chat messages and renders no chat template itself",
		values: []string{"chat-template-kwargs"}, switches: []string{"skip-chat-template", "enable-multimodal-chat"}},
	{why: "omnik bench draws no plots; omnik report reads --out json files",
		values: []string{"timeline-itl-thresholds"}, switches: []string{"plot-timeline", "plot-dataset-stats"}},
	{why: "request ids change no measurement; records keep the server's response id", values: []string{"request-id-prefix"}},
	{why: "only with --lora-modules, which omnik bench refuses", values: []string{"lora-assignment"}},
	{why: "it configures a dataset omnik does not have (--dataset-name refuses it)",
		values: []string{"hf-subset", "hf-split", "hf-name", "hf-output-len", "spec-bench-output-len", "spec-bench-category",
			"sonnet-input-len", "sonnet-output-len", "sonnet-prefix-len", "blazedit-min-distance", "blazedit-max-distance",
			"asr-max-audio-len-sec", "asr-min-audio-len-sec", "prefix-repetition-prefix-len", "prefix-repetition-suffix-len",
			"prefix-repetition-num-prefixes", "prefix-repetition-output-len", "random-batch-size",
			"daily-omni-qa-json", "daily-omni-video-dir", "daily-omni-input-mode", "daily-omni-pack-mode",
			"videomme-parquet", "videomme-video-dir", "videomme-subtitle-dir", "videomme-pack-mode", "videomme-max-frames",
			"videomme-duration", "seed-tts-locale", "seed-tts-turns-per-session", "seed-tts-root", "seed-tts-system-prompt"},
		switches: []string{"no-stream", "no-reranker", "daily-omni-inline-local-video", "daily-omni-save-eval-items",
			"videomme-use-subtitle", "videomme-inline-local-video", "videomme-save-eval-items",
			"seed-tts-file-ref-audio", "seed-tts-inline-ref-audio", "seed-tts-wer-eval", "seed-tts-wer-save-items"}},
}

// registerIgnoredVLLMFlags adds the ignored flags, hidden from --help.
func registerIgnoredVLLMFlags(fs *pflag.FlagSet) {
	for _, g := range ignoredVLLMFlags {
		for _, name := range g.values {
			fs.String(name, "", "ignored: "+g.why)
			_ = fs.MarkHidden(name)
		}
		for _, name := range g.switches {
			fs.Bool(name, false, "ignored: "+g.why)
			_ = fs.MarkHidden(name)
		}
	}
}

// refusedVLLMFlags are vllm bench serve flags that would change what is measured and
// that omnik bench does not implement, with why and what to do instead.
var refusedVLLMFlags = map[string]string{
	"use-beam-search":    "omnik sends no beam search requests",
	"logprobs":           "not supported by omnik bench; pass it with --extra-body",
	"profile":            "server profiling is not driven by omnik",
	"ramp-up-strategy":   "use omnik run with a ramping-arrival-rate scenario (omnik bench --print-script is a start)",
	"ramp-up-start-rps":  "use omnik run with a ramping-arrival-rate scenario",
	"ramp-up-end-rps":    "use omnik run with a ramping-arrival-rate scenario",
	"probe-request-rate": "use omnik run with a second scenario for the probe requests",
	"lora-modules":       "use omnik run with a scenario that picks the model of each request",
	"self-timed":         "it is for --dataset-name timed_trace, which omnik does not have",
	"no-self-timed":      "it is for --dataset-name timed_trace, which omnik does not have",
	"no-oversample":      "omnik bench always sends --num-prompts requests, reusing samples; lower --num-prompts instead",
}

// unsupportedVLLMFlag names a known vllm flag omnik refuses, instead of the parser's bare
// message; every flag error is a usage error (exit 104).
func unsupportedVLLMFlag(err error) error {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		name, _, _ := strings.Cut(rest, "=")
		name = string(vllmName(nil, name))
		if why, known := refusedVLLMFlags[name]; known {
			msg = fmt.Sprintf("--%s is a vllm bench serve flag omnik does not support: %s", name, why)
		}
	}
	return &engine.OptionsError{Msg: msg}
}
