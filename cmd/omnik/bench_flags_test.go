package main

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// Every flag lands in the scenario script `omnik bench` runs (and --print-script prints).
func TestBenchFlagsShapeTheScript(t *testing.T) {
	t.Parallel()
	sharegpt := benchTestdata(t, "sharegpt.json")
	type want map[string]any // "scenario.rate", "dataset.seed", "extraBody.ignore_eos", "omni.model", "backend", ...
	for _, tc := range []struct {
		name string
		args []string
		want want
	}{
		{name: "defaults", want: want{
			"scenario.executor": "poisson-arrival-rate", "scenario.rate": "inf", "scenario.timeUnit": "1s",
			"scenario.burstiness": 1.0, "scenario.iterations": 1000.0, "scenario.maxVUs": 1000.0,
			"scenario.preAllocatedVUs": 64.0, "scenario.seed": 0.0,
			"dataset": map[string]any{"name": "random", "numPrompts": 1000.0, "randomInputLen": 1024.0,
				"randomOutputLen": 128.0, "randomRangeRatio": 0.0, "seed": 0.0, "calibrate": true},
			"extraBody": map[string]any{}, "warmups": 0.0, "returnStageMetrics": false, "ignoreEOS": false,
			"backend": "openai-chat-omni", "omni": map[string]any{"baseURL": "http://127.0.0.1:8000"},
			"initialTest": true, "readyTimeout": 0.0, "setupTimeout": "10m0s",
		}},
		{name: "sampling flags under the extra body", args: []string{"--temperature", "0.5", "--top-p", "0.9", "--top-k", "5",
			"--min-p", "0.1", "--frequency-penalty", "0.2", "--presence-penalty", "0.3", "--repetition-penalty", "1.1",
			"--extra-body", `{"temperature":0.7}`}, want: want{"extraBody": map[string]any{"temperature": 0.7, "top_p": 0.9,
			"top_k": 5.0, "min_p": 0.1, "frequency_penalty": 0.2, "presence_penalty": 0.3, "repetition_penalty": 1.1}}},
		{name: "headers, space-separated and trimmed", args: []string{"--header", "x-a=1", "x-b=two=2", "--header=x-c=3", "--header", " x-d = 4 "},
			want: want{"omni.headers": map[string]any{"x-a": "1", "x-b": "two=2", "x-c": "3", "x-d": "4"}}},
		{name: "insecure", args: []string{"--insecure"}, want: want{"omni.insecureSkipTLSVerify": true}},
		{name: "insecure, omnik's spelling", args: []string{"--insecure-skip-tls-verify"}, want: want{"omni.insecureSkipTLSVerify": true}},
		{name: "TLS files", args: []string{"--tls-ca-file", "ca.pem", "--tls-cert", "c.pem", "--tls-key", "k.pem"},
			want: want{"omni.tls": map[string]any{"caFile": "ca.pem", "certFile": "c.pem", "keyFile": "k.pem"}}},
		{name: "ready check timeout", args: []string{"--ready-check-timeout-sec", "30"},
			want: want{"initialTest": true, "readyTimeout": 30.0, "setupTimeout": "10m30s"}},
		{name: "ready check 0 skips the test request", args: []string{"--ready-check-timeout-sec", "0"}, want: want{"initialTest": false}},
		{name: "setup timeout covers the warmups", args: []string{"--num-warmups", "2"}, want: want{"setupTimeout": "30m0s"}},
		{name: "input and output len", args: []string{"--input-len", "32", "--output-len", "9"}, want: want{"dataset.randomInputLen": 32.0,
			"dataset.randomOutputLen": 9.0, "dataset.sharegptOutputLen": 9.0, "dataset.customOutputLenOverride": 9.0}},
		{name: "dataset lengths", args: []string{"--random-prefix-len", "16", "--sharegpt-output-len", "12", "--custom-output-len", "7"},
			want: want{"dataset.randomPrefixLen": 16.0, "dataset.sharegptOutputLen": 12.0, "dataset.customOutputLenOverride": 7.0}},
		{name: "disable shuffle", args: []string{"--disable-shuffle"}, want: want{"dataset.disableShuffle": true}},
		{name: "random-mm flags", args: []string{"--dataset-name", "random-mm", "--random-mm-base-items-per-request", "2",
			"--random-mm-num-mm-items-range-ratio", "0.5", "--random-mm-limit-mm-per-prompt", `{"image": 2}`,
			"--random-mm-bucket-config", "{(64, 32, 1): 0.5, (0, 1, 1): 0.5}"}, want: want{"dataset.mm": map[string]any{
			"baseItems": 2.0, "itemsRangeRatio": 0.5, "limits": map[string]any{"image": 2.0}, "buckets": []any{
				map[string]any{"height": 64.0, "width": 32.0, "frames": 1.0, "prob": 0.5},
				map[string]any{"height": 0.0, "width": 1.0, "frames": 1.0, "prob": 0.5}}}}},
		{name: "random-mm defaults", args: []string{"--dataset-name", "random-mm"}, want: want{"dataset.mm": nil}},
		{name: "image edits bot task", args: []string{"--endpoint", "/v1/images/edits", "--image-edits-bot-task", "think"},
			want: want{"extraBody": map[string]any{"bot_task": "think"}}},
		{name: "bot task under the extra body", args: []string{"--endpoint", "/v1/images/edits", "--image-edits-bot-task", "think",
			"--extra-body", `{"bot_task":"plain"}`}, want: want{"extraBody": map[string]any{"bot_task": "plain"}}},
		{name: "bot task only for edits", args: []string{"--image-edits-bot-task", "think"}, want: want{"extraBody": map[string]any{}}},
		{name: "vllm spellings", args: []string{"--num_prompts", "7", "--request_rate", "3"},
			want: want{"scenario.iterations": 7.0, "scenario.rate": 3.0}},
		{name: "request rate", args: []string{"--request-rate", "12.5"}, want: want{"scenario.rate": 12.5}},
		{name: "request rate INF", args: []string{"--request-rate", "INF"}, want: want{"scenario.rate": "inf"}},
		{name: "burstiness", args: []string{"--burstiness", "0.5"}, want: want{"scenario.burstiness": 0.5}},
		{name: "num prompts", args: []string{"--num-prompts", "7"}, want: want{
			"scenario.iterations": 7.0, "scenario.maxVUs": 7.0, "scenario.preAllocatedVUs": 7.0, "dataset.numPrompts": 7.0}},
		{name: "max concurrency", args: []string{"--num-prompts", "100", "--max-concurrency", "3"}, want: want{
			"scenario.maxVUs": 3.0, "scenario.preAllocatedVUs": 3.0, "scenario.iterations": 100.0}},
		{name: "seed", args: []string{"--seed", "42"}, want: want{"scenario.seed": 42.0, "dataset.seed": 42.0}},
		{name: "random lengths", args: []string{"--random-input-len", "32", "--random-output-len", "9", "--random-range-ratio", "0.25"},
			want: want{"dataset.randomInputLen": 32.0, "dataset.randomOutputLen": 9.0, "dataset.randomRangeRatio": 0.25}},
		{name: "sharegpt path made absolute", args: []string{"--dataset-name", "sharegpt", "--dataset-path", "testdata/bench/sharegpt.json"},
			want: want{"dataset.name": "sharegpt", "dataset.path": sharegpt}},
		{name: "random-mm", args: []string{"--dataset-name", "random-mm"}, want: want{"dataset.name": "random-mm"}},
		{name: "extra body", args: []string{"--extra-body", `{"temperature":0,"x":{"y":[1,2]}}`},
			want: want{"extraBody": map[string]any{"temperature": 0.0, "x": map[string]any{"y": []any{1.0, 2.0}}}}},
		{name: "ignore eos beside the extra body", args: []string{"--ignore-eos", "--extra-body", `{"top_k":5}`},
			want: want{"extraBody": map[string]any{"top_k": 5.0}, "ignoreEOS": true}},
		{name: "ignore eos is for chat only", args: []string{"--ignore-eos", "--endpoint", "/v1/audio/speech"},
			want: want{"ignoreEOS": false}},
		{name: "print stage", args: []string{"--print-stage"}, want: want{"returnStageMetrics": true}},
		{name: "warmups", args: []string{"--num-warmups", "3"}, want: want{"warmups": 3.0}},
		{name: "chat endpoint", args: []string{"--endpoint", "/v1/chat/completions"}, want: want{"backend": "openai-chat-omni"}},
		{name: "speech endpoint", args: []string{"--endpoint", "/v1/audio/speech"}, want: want{"backend": "openai-audio-speech"}},
		{name: "image edits endpoint", args: []string{"--endpoint", "/v1/images/edits"}, want: want{"backend": "openai-image-edits-omni"}},
		{name: "image generations endpoint", args: []string{"--endpoint", "/v1/images/generations"}, want: want{"backend": "openai-images-omni"}},
		{name: "videos endpoint", args: []string{"--endpoint", "/v1/videos"}, want: want{"backend": "openai-videos-omni", "setupTimeout": "6h0m0s"}},
		// A video job's request lasts up to its poll timeout, not the client's.
		{name: "video setup timeout from poll_timeout_s", args: []string{"--endpoint", "/v1/videos", "--num-warmups", "1", "--ready-check-timeout-sec", "30",
			"--extra-body", `{"poll_timeout_s":1800}`}, want: want{"setupTimeout": "1h0m30s"}},
		{name: "backend over endpoint", args: []string{"--backend", "openai-audio-speech"}, want: want{"backend": "openai-audio-speech"}},
		{name: "model", args: []string{"--model", "org/m1"}, want: want{"omni.model": "org/m1"}},
		{name: "served model name over model", args: []string{"--model", "org/m1", "--served-model-name", "served"},
			want: want{"omni.model": "served"}},
		{name: "host and port", args: []string{"--host", "10.1.2.3", "--port", "9001"},
			want: want{"omni": map[string]any{"baseURL": "http://10.1.2.3:9001"}}},
		{name: "base url over host and port", args: []string{"--host", "10.1.2.3", "--port", "9001", "--base-url", "https://srv.example:8443"},
			want: want{"omni.baseURL": "https://srv.example:8443"}},
		{name: "omni accepted", args: []string{"--omni"}, want: want{"scenario.executor": "poisson-arrival-rate"}},
		{name: "summary flags leave the script alone", args: []string{"--goodput", "ttft:500", "--percentile-metrics", "ttft,e2el",
			"--metric-percentiles", "50,99", "--save-result", "--label", "x", "--metadata", "a=1"},
			want: want{"extraBody": map[string]any{}, "returnStageMetrics": false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := printScript(t, tc.args...)
			parts := map[string]any{"omni": s.omni, "scenario": s.scenario, "setupTimeout": s.setupTimeout}
			for k, v := range s.params {
				parts[k] = v
			}
			for key, w := range tc.want {
				top, sub, nested := strings.Cut(key, ".")
				got := parts[top]
				if nested {
					got = got.(map[string]any)[sub]
				}
				if !reflect.DeepEqual(got, w) {
					t.Errorf("%s = %#v, want %#v", key, got, w)
				}
			}
			if strings.Contains(s.text, "omnik/bench") {
				t.Errorf("the printed script imports omnik/bench, which only omnik bench has:\n%s", s.text)
			}
			if first, _, _ := strings.Cut(s.text, "\n"); !strings.HasPrefix(first, "// Generated by: omnik bench --print-script") {
				t.Errorf("first line %q, want the command line", first)
			}
		})
	}
}

// The command line in the script's first comment stays one line whatever the arguments
// hold, so a line break in a flag value cannot turn into code.
func TestBenchScriptCommentIsOneLine(t *testing.T) {
	t.Parallel()
	s := printScript(t, "--label", "a\nconst boom = 1;", "--extra-body", "{\"a\":\n1}")
	if strings.Contains(s.text, "\nconst boom") {
		t.Errorf("a flag value broke out of the comment:\n%s", s.text)
	}
	first, _, _ := strings.Cut(s.text, "\n")
	if want := `--label "a\nconst boom = 1;" --extra-body "{\"a\":\n1}"`; !strings.HasSuffix(first, want) {
		t.Errorf("first line %q, want it to end in %q", first, want)
	}
}

// Bad flags stop omnik bench before it builds anything: exit 104 with the reason.
func TestBenchRejectsFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"vllm --use-beam-search", []string{"--use-beam-search"}, "--use-beam-search is a vllm bench serve flag omnik does not support: omnik sends no beam search requests"},
		{"vllm --ramp-up-strategy", []string{"--ramp-up-strategy", "linear"}, "--ramp-up-strategy is a vllm bench serve flag omnik does not support: use omnik run with a ramping-arrival-rate scenario"},
		{"vllm --logprobs=5", []string{"--logprobs=5"}, "--logprobs is a vllm bench serve flag omnik does not support: not supported by omnik bench; pass it with --extra-body"},
		{"vllm spelling --lora_modules", []string{"--lora_modules", "a"}, "--lora-modules is a vllm bench serve flag omnik does not support"},
		{"vllm --no-oversample", []string{"--no-oversample"}, "--no-oversample is a vllm bench serve flag omnik does not support"},
		{"plain unknown flag", []string{"--frobnicate"}, "unknown flag: --frobnicate"},
		{"request rate 0", []string{"--request-rate", "0"}, `--request-rate "0": want a positive number or inf`},
		{"request rate -1", []string{"--request-rate", "-1"}, `--request-rate "-1": want a positive number or inf`},
		{"request rate abc", []string{"--request-rate", "abc"}, `--request-rate "abc": want a positive number or inf`},
		{"request rate nan", []string{"--request-rate", "NaN"}, `--request-rate "NaN": want a positive number or inf`},
		{"num prompts 0", []string{"--num-prompts", "0"}, "--num-prompts must be at least 1"},
		{"num prompts abc", []string{"--num-prompts", "abc"}, `invalid argument "abc" for "--num-prompts"`},
		{"burstiness 0", []string{"--burstiness", "0"}, "--burstiness must be a positive number"},
		{"burstiness -1", []string{"--burstiness", "-1"}, "--burstiness must be a positive number"},
		{"burstiness inf", []string{"--burstiness", "inf"}, "--burstiness must be a positive number"},
		{"burstiness abc", []string{"--burstiness", "abc"}, `invalid argument "abc" for "--burstiness"`},
		{"random range ratio nan", []string{"--random-range-ratio", "nan"}, "--random-range-ratio must be a number in [0, 1)"},
		{"max concurrency -1", []string{"--max-concurrency", "-1"}, "--max-concurrency must not be negative"},
		{"num warmups -1", []string{"--num-warmups", "-1"}, "--num-warmups must not be negative"},
		{"extra body not JSON", []string{"--extra-body", "{temperature: 0}"}, "--extra-body: want a JSON object"},
		{"extra body an array", []string{"--extra-body", "[1]"}, "--extra-body: want a JSON object"},
		{"endpoint", []string{"--endpoint", "/v1/completions"}, `--endpoint "/v1/completions": omnik bench supports /v1/chat/completions, /v1/images/generations, /v1/images/edits, /v1/audio/speech and /v1/videos`},
		{"backend", []string{"--backend", "openai"}, `--backend "openai": omnik bench supports openai-audio-speech, openai-chat-omni, openai-image-edits-omni, openai-images-omni, openai-videos-omni`},
		{"stray argument", []string{"stray"}, `unexpected argument "stray": omnik bench takes flags only`},
		{"goodput unknown key", []string{"--goodput", "latency:500"}, `goodput "latency:500": want KEY:ms with KEY one of ttft, tpot, e2el, ttfc, audio_ttfp`},
		{"goodput no colon", []string{"--goodput", "ttft500"}, `goodput "ttft500": want KEY:ms`},
		{"goodput bad value", []string{"--goodput", "ttft:fast"}, `goodput "ttft:fast": value must be a non-negative number of ms`},
		{"goodput second item unknown", []string{"--goodput", "ttft:500", "itl:5"}, `goodput "itl:5": want KEY:ms`},
		{"percentile metrics", []string{"--percentile-metrics", "ttft,latency"}, `--percentile-metrics: percentile metric "latency": not one of ttft, tpot, tpop, itl, e2el`},
		{"metric percentiles", []string{"--metric-percentiles", "101"}, `--metric-percentiles: metric percentile "101": want a number in [0, 100]`},
		{"metadata without =", []string{"--metadata", "novalue"}, `--metadata "novalue": expected KEY=VALUE`},
		{"dataset name", []string{"--dataset-name", "sonnet"}, `--dataset-name "sonnet": want one of random, random-mm, sharegpt, custom`},
		{"custom without path", []string{"--dataset-name", "custom"}, "--dataset-path is required for the custom dataset"},
		{"random range ratio 1", []string{"--random-range-ratio", "1"}, "--random-range-ratio 1: want [0, 1)"},
		{"image edits without images", []string{"--endpoint", "/v1/images/edits"},
			"--endpoint /v1/images/edits edits input images, and request 1 of the random dataset has none: use --dataset-name random-mm"},
		{"ready check timeout -1", []string{"--ready-check-timeout-sec", "-1"}, "--ready-check-timeout-sec must not be negative"},
		{"custom output len 0", []string{"--custom-output-len", "0"}, "--custom-output-len must be positive, or -1"},
		{"sharegpt output len -1", []string{"--sharegpt-output-len", "-1"}, "--sharegpt-output-len must not be negative"},
		{"random prefix len -1", []string{"--random-prefix-len", "-1"}, "--random-prefix-len -1: want at least 0"},
		{"random-mm limits", []string{"--dataset-name", "random-mm", "--random-mm-limit-mm-per-prompt", "image=3"}, "--random-mm-limit-mm-per-prompt \"image=3\""},
		{"random-mm buckets", []string{"--dataset-name", "random-mm", "--random-mm-bucket-config", "(1,2,3)"}, "--random-mm-bucket-config \"(1,2,3)\""},
		{"header without =", []string{"--header", "novalue"}, `--header "novalue": expected KEY=VALUE`},
		{"top-k not an integer", []string{"--top-k", "0.5"}, `invalid argument "0.5" for "--top-k"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := startBenchServer(t)
			args := append([]string{"bench", "-q", "--base-url", srv.URL, "--num-prompts", "2", "--random-input-len", "8", "--random-output-len", "2"}, tc.args...)
			r := runOmnik(t, t.TempDir(), nil, args...)
			expect{code: 104, stderr: []string{tc.want}, notStdout: []string{"Successful requests"}}.check(t, r)
			if n := len(srv.posts()); n != 0 {
				t.Errorf("%d requests sent, want none", n)
			}
		})
	}
}

// vllm's nargs="+" forms: `--goodput ttft:500 tpot:50` and `--metadata a=1 b=2`.
func TestBenchSpaceSeparatedLists(t *testing.T) {
	t.Parallel()
	srv := startBenchServer(t)
	dir := t.TempDir()
	r := runOmnik(t, dir, nil, "bench", "-q", "--base-url", srv.URL, "--num-prompts", "2", "--random-input-len", "8", "--random-output-len", "3",
		"--goodput", "ttft:600000", "tpot:600000", "e2el:600000", "--metadata", "a=1", "b=x=y", "completed=oops", "label=meta", "--label", "L", "--save-result", "--result-filename", "r.json")
	expect{code: 0, stdout: []string{"Request goodput (req/s):"}}.check(t, r)
	res := readResult(t, dir+"/r.json")
	if res["a"] != "1" || res["b"] != "x=y" {
		t.Errorf("metadata a, b = %v, %v; want 1, x=y", res["a"], res["b"])
	}
	// As in vllm, a pair replaces the keys written before the metadata (date, label,
	// model_id …) but not the results written after it.
	if res["label"] != "meta" || res["completed"] != 2.0 {
		t.Errorf("label, completed = %#v, %#v; want meta (from --metadata), 2 (the result)", res["label"], res["completed"])
	}
	slo := res["omnik"].(map[string]any)["goodput_slo_ms"]
	if want := map[string]any{"ttft": 600000.0, "tpot": 600000.0, "e2el": 600000.0}; !reflect.DeepEqual(slo, want) {
		t.Errorf("omnik.goodput_slo_ms = %v, want %v", slo, want)
	}
}

// What the flags put on the wire, per endpoint: the path, the model name sent, and the
// body fields (extra body, ignore_eos, return_stage_metrics, max_tokens).
func TestBenchRequestsOnTheWire(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		endpoint, model string
		dataset         []string
		json            bool
		want            map[string]any // body fields (JSON bodies)
		multipart       []string       // form field names (multipart bodies)
	}{
		{"/v1/chat/completions", "Qwen/Qwen3-Omni-30B-A3B-Instruct", nil, true,
			map[string]any{"max_tokens": 3.0, "ignore_eos": true, "temperature": 0.25, "return_stage_metrics": true, "stream": true}, nil},
		{"/v1/audio/speech", "Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice", nil, true,
			map[string]any{"stream": true, "stream_format": "sse", "return_stage_metrics": true, "response_format": "pcm", "temperature": 0.25}, nil},
		{"/v1/images/generations", "tencent/HunyuanImage-3.0", nil, true,
			map[string]any{"n": 1.0, "temperature": 0.25, "return_stage_metrics": true}, nil},
		{"/v1/images/edits", "ByteDance-Seed/BAGEL-7B-MoT", []string{"--dataset-name", "random-mm"}, false,
			nil, []string{`name="image"; filename="image.png"`, `name="prompt"`, `name="model"`}},
		// The poll settings stay off the form, as the reference keeps them.
		{"/v1/videos", "Wan-AI/Wan2.2-T2V-A14B-Diffusers", []string{"--extra-body", `{"temperature":0.25,"poll_interval_s":0.01,"num_frames":17}`}, false,
			nil, []string{`name="prompt"`, `name="model"`, `name="num_frames"`, `name="return_stage_metrics"`}},
	} {
		t.Run(strings.ReplaceAll(tc.endpoint, "/", "_"), func(t *testing.T) {
			t.Parallel()
			srv := startBenchServer(t)
			args := append([]string{"bench", "-q", "--host", srv.host, "--port", srv.port, "--endpoint", tc.endpoint,
				"--model", "ignored/because-served-model-name-is-set", "--served-model-name", tc.model,
				"--num-prompts", "2", "--random-input-len", "8", "--random-output-len", "3", "--ignore-eos", "--print-stage",
				"--extra-body", `{"temperature":0.25}`}, tc.dataset...)
			r := runOmnik(t, t.TempDir(), nil, args...)
			expect{code: 0, stdout: []string{"Successful requests:                     2 ", "Failed requests:                         0 "}}.check(t, r)
			posts := srv.posts()
			if len(posts) != 3 {
				t.Fatalf("%d requests, want the initial test and 2", len(posts))
			}
			for _, p := range posts {
				if p.path != tc.endpoint {
					t.Errorf("POST %s, want %s", p.path, tc.endpoint)
				}
				if !tc.json {
					body := string(p.body)
					for _, f := range append(tc.multipart, tc.model) {
						if !strings.Contains(body, f) {
							t.Errorf("multipart body lacks %q", f)
						}
					}
					if strings.Contains(body, "poll_") {
						t.Errorf("the poll settings went on the form: %s", body)
					}
					continue
				}
				body := p.json()
				if body["model"] != tc.model {
					t.Errorf("model %v, want %s", body["model"], tc.model)
				}
				for k, v := range tc.want {
					if !reflect.DeepEqual(body[k], v) {
						t.Errorf("%s = %#v, want %#v (body %s)", k, body[k], v, p.body)
					}
				}
			}
		})
	}
}

// readResult decodes a --save-result file.
func readResult(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
	return m
}
