package main

import (
	"fmt"
	"github.com/omnik-dev/omnik/modules/omni/record"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/mock"
)

// benchArgs are the common flags of a short bench run against srv.
func benchArgs(srv *benchServer, extra ...string) []string {
	return append([]string{"bench", "-q", "--base-url", srv.URL, "--random-input-len", "8", "--random-output-len", "3"}, extra...)
}

// The arrivals of a fixed seed: one record per prompt, the schedule spans N/rate, and the
// gaps have gamma's mean 1/rate and variance 1/(rate²·burstiness). The scenario start is
// not in the records, so the span is measured from the first arrival (which vllm's
// schedule also delays by one gap); engine/poisson_offsets_test.go pins the last offset
// to exactly N/rate.
func TestBenchArrivalsFollowGamma(t *testing.T) {
	t.Parallel()
	const n, rate = 600, 1200.0
	for _, b := range []float64{1, 0.5} {
		t.Run(fmt.Sprint("burstiness ", b), func(t *testing.T) {
			t.Parallel()
			srv := startBenchServer(t)
			dir := t.TempDir()
			r := runOmnik(t, dir, nil, benchArgs(srv, "--num-prompts", strconv.Itoa(n), "--request-rate", fmt.Sprint(rate),
				"--burstiness", fmt.Sprint(b), "--seed", "7", "--max-concurrency", "16", "--random-output-len", "1", "--out", "json=out.json")...)
			expect{code: 0, stdout: []string{"Successful requests:                     600 ", "Request rate configured (RPS):           1200.00 ",
				"Maximum request concurrency:             16 "}}.check(t, r)
			recs := readRecords(t, filepath.Join(dir, "out.json"))
			if len(recs) != n {
				t.Fatalf("%d records, want %d (--num-prompts)", len(recs), n)
			}
			if got := len(srv.posts()); got != n+1 {
				t.Errorf("the server got %d requests, want the initial test and %d", got, n)
			}
			starts := make([]time.Time, n)
			for i, rec := range recs {
				if rec.IntendedStart.IsZero() {
					t.Fatalf("record %d has no intended_start", i)
				}
				starts[i] = rec.IntendedStart
			}
			slices.SortFunc(starts, func(a, b time.Time) int { return a.Compare(b) })
			span := starts[n-1].Sub(starts[0]).Seconds()
			if want := n / rate; span > want+0.001 || span < want-20/rate {
				t.Errorf("arrivals span %.4fs, want N/rate = %.4fs less the first gap (≈%.4fs)", span, want, 1/rate)
			}
			gaps := make([]float64, n-1)
			for i := range gaps {
				gaps[i] = starts[i+1].Sub(starts[i]).Seconds()
			}
			mean, variance := meanVar(gaps)
			wantVar := 1 / (rate * rate * b)
			t.Logf("burstiness %v: mean gap %.3gs (want %.3g), variance %.3g (want %.3g), CV² %.2f", b, mean, 1/rate, variance, wantVar, variance/(mean*mean))
			if math.Abs(mean*rate-1) > 0.05 {
				t.Errorf("mean gap %.4gs, want 1/rate = %.4gs within 5%%", mean, 1/rate)
			}
			// The sample variance of n gamma gaps has a relative error of about
			// sqrt((2+6/b)/n): 12% for b = 1, 15% for b = 0.5 at n = 600.
			if ratio := variance / wantVar; ratio < 0.6 || ratio > 1.4 {
				t.Errorf("gap variance %.4g, want 1/(rate²·b) = %.4g within 40%%", variance, wantVar)
			}
		})
	}
}

func meanVar(xs []float64) (mean, variance float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		variance += (x - mean) * (x - mean)
	}
	return mean, variance / float64(len(xs)-1)
}

// The same seed gives the same schedule and the same prompts; another seed does not.
func TestBenchSeedIsReproducible(t *testing.T) {
	t.Parallel()
	run := func(seed string) (offsets []time.Duration, prompts []int) {
		srv := startBenchServer(t)
		dir := t.TempDir()
		r := runOmnik(t, dir, nil, benchArgs(srv, "--num-prompts", "20", "--request-rate", "200", "--seed", seed,
			"--random-input-len", "40", "--random-range-ratio", "0.5", "--out", "json=out.json")...)
		expect{code: 0}.check(t, r)
		recs := readRecords(t, filepath.Join(dir, "out.json"))
		// The intended start on the run's monotonic timeline: a record's wall-clock start
		// moves with the system clock's slewing, microseconds apart within a run.
		intended := func(r *record.Record) time.Duration { return r.Offset - r.Start.Sub(r.IntendedStart) }
		sort.Slice(recs, func(i, j int) bool { return intended(recs[i]) < intended(recs[j]) })
		for _, rec := range recs {
			offsets = append(offsets, intended(rec)-intended(recs[0]))
			prompts = append(prompts, rec.Usage.Prompt)
		}
		return offsets, prompts
	}
	o1, p1 := run("11")
	o2, p2 := run("11")
	o3, p3 := run("12")
	for i := range o1 {
		if d := o1[i] - o2[i]; d < -time.Microsecond || d > time.Microsecond {
			t.Errorf("seed 11: arrival %d at %v and %v", i, o1[i], o2[i])
		}
	}
	if !reflect.DeepEqual(p1, p2) {
		t.Errorf("seed 11: prompt tokens %v and %v", p1, p2)
	}
	if reflect.DeepEqual(o1, o3) || reflect.DeepEqual(p1, p3) {
		t.Errorf("seeds 11 and 12 gave the same run: %v %v", o3, p3)
	}
}

// Every dataset runs through bench; the random one's input tokens (the server's usage)
// grow with --random-input-len.
func TestBenchDatasets(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		args  []string
		check func(t *testing.T, recs []*record.Record, posts []seenRequest)
	}{
		{"random 16", []string{"--dataset-name", "random", "--random-input-len", "16"}, func(t *testing.T, recs []*record.Record, _ []seenRequest) {
			perPrompt(t, recs, 16, 40)
		}},
		{"random 128", []string{"--dataset-name", "random", "--random-input-len", "128"}, func(t *testing.T, recs []*record.Record, _ []seenRequest) {
			perPrompt(t, recs, 128, 210)
		}},
		{"sharegpt", []string{"--dataset-name", "sharegpt", "--dataset-path", benchTestdata(t, "sharegpt.json")}, func(t *testing.T, _ []*record.Record, posts []seenRequest) {
			// The three human turns of the file, each sent once, with their reply's length.
			var got []string
			for _, p := range posts {
				got = append(got, firstUserText(t, p))
			}
			sort.Strings(got)
			want := []string{"Explain in a few sentences why the sky looks blue during the day.",
				"List three practical tips for keeping a sourdough starter healthy.",
				"Write a short poem about a lighthouse keeper and the sea at night."}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("prompts %q, want %q", got, want)
			}
		}},
		{"custom with images", []string{"--dataset-name", "custom", "--dataset-path", benchTestdata(t, "custom.jsonl")}, func(t *testing.T, recs []*record.Record, posts []seenRequest) {
			var images int
			maxTokens := map[float64]int{}
			for _, p := range posts {
				body := string(p.body)
				images += strings.Count(body, `"image_url":{"url":"data:image/png;base64,`)
				maxTokens[p.json()["max_tokens"].(float64)]++
			}
			if images != 2 {
				t.Errorf("%d images sent, want 2 (two lines carry pixel.png)", images)
			}
			if want := map[float64]int{6: 1, 5: 1, 4: 1}; !reflect.DeepEqual(maxTokens, want) {
				t.Errorf("max_tokens %v, want output_tokens of each line %v", maxTokens, want)
			}
		}},
		{"random-mm", []string{"--dataset-name", "random-mm"}, func(t *testing.T, _ []*record.Record, posts []seenRequest) {
			for _, p := range posts {
				if !strings.Contains(string(p.body), `"type":"image_url"`) {
					t.Errorf("a random-mm request has no image: %.300s", p.body)
				}
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := startBenchServer(t)
			dir := t.TempDir()
			r := runOmnik(t, dir, nil, benchArgs(srv, append([]string{"--num-prompts", "3", "--seed", "1", "--out", "json=out.json"}, tc.args...)...)...)
			expect{code: 0, stdout: []string{"Successful requests:                     3 ", "Failed requests:                         0 "}}.check(t, r)
			recs := readRecords(t, filepath.Join(dir, "out.json"))
			if len(recs) != 3 {
				t.Fatalf("%d records, want 3", len(recs))
			}
			var input int
			for _, rec := range recs {
				if !rec.OK() {
					t.Errorf("a request failed: %+v", rec.Err)
				}
				input += rec.Usage.Prompt
			}
			if got := summaryValue(t, r.stdout, "Total input tokens:"); got != strconv.Itoa(input) {
				t.Errorf("Total input tokens: %s, want the server's usage sum %d", got, input)
			}
			tc.check(t, recs, srv.afterTest())
		})
	}
}

// perPrompt checks the server's prompt tokens of every record.
func perPrompt(t *testing.T, recs []*record.Record, lo, hi int) {
	t.Helper()
	for _, rec := range recs {
		if rec.Usage.Prompt < lo || rec.Usage.Prompt > hi {
			t.Errorf("prompt tokens %d, want %d–%d", rec.Usage.Prompt, lo, hi)
		}
	}
}

// firstUserText is the text of the first user message of a chat request.
func firstUserText(t *testing.T, p seenRequest) string {
	t.Helper()
	msgs, _ := p.json()["messages"].([]any)
	if len(msgs) == 0 {
		t.Fatalf("no messages in %s", p.body)
	}
	switch c := msgs[0].(map[string]any)["content"].(type) {
	case string:
		return c
	case []any:
		return c[0].(map[string]any)["text"].(string)
	}
	t.Fatalf("bad content in %s", p.body)
	return ""
}

// A malformed dataset stops the run before any request, naming the file, line and reason.
func TestBenchMalformedDatasets(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, dataset, file string
		want                []string
	}{
		{"bad JSONL line", "custom", "bad_line.jsonl", []string{"bad_line.jsonl:2:", "unexpected end of JSON input"}},
		{"missing prompt", "custom", "missing_prompt.jsonl", []string{"missing_prompt.jsonl:3:", `"prompt" is missing`}},
		{"bad ShareGPT JSON", "sharegpt", "bad_sharegpt.json", []string{"bad_sharegpt.json:4:", "entry 0: invalid character"}},
		{"missing file", "custom", "no_such.jsonl", []string{"no_such.jsonl", "no such file or directory"}},
		{"custom file given as sharegpt", "sharegpt", "custom.jsonl", []string{"custom.jsonl:1:1", "want a JSON array of conversations"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := startBenchServer(t)
			path := benchTestdata(t, tc.file)
			r := runOmnik(t, t.TempDir(), nil, benchArgs(srv, "--num-prompts", "2", "--dataset-name", tc.dataset, "--dataset-path", path)...)
			expect{code: 104, stderr: append([]string{"dataset " + filepath.Dir(path) + "/"}, tc.want...), notStdout: []string{"Successful requests"}}.check(t, r)
			if n := len(srv.posts()); n != 0 {
				t.Errorf("%d requests sent before the dataset error, want none", n)
			}
		})
	}
}

// Goodput: an impossible SLO gives 0.00; a generous one equals the request throughput.
// The simulator runs in real time here. A request whose text chunks were read together
// (all ITL gaps 0) gets no TPOT and so fails any tpot SLO, however generous: a bug of
// report.requestTPOT (mean > 0), reported, so the generous case leaves tpot out.
func TestBenchGoodput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		goodput []string
		all     bool
	}{
		{"impossible e2el", []string{"--goodput", "e2el:1"}, false},
		{"impossible ttft among generous", []string{"--goodput", "e2el:600000", "ttft:0.001"}, false},
		// No tpot: a request whose chunks were read together has no TPOT (see above).
		{"generous", []string{"--goodput", "ttft:600000", "e2el:600000", "ttfc:600000"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := startBenchServer(t, mock.WithSpeed(1))
			r := runOmnik(t, t.TempDir(), nil, benchArgs(srv, append([]string{"--num-prompts", "4"}, tc.goodput...)...)...)
			expect{code: 0}.check(t, r)
			good := summaryValue(t, r.stdout, "Request goodput (req/s):")
			throughput := summaryValue(t, r.stdout, "Request throughput (req/s):")
			if tc.all && good != throughput {
				t.Errorf("goodput %s, want the request throughput %s", good, throughput)
			}
			if !tc.all && good != "0.00" {
				t.Errorf("goodput %s, want 0.00", good)
			}
			// The row sits right after the throughput row, as in vllm's output.
			if !regexp.MustCompile(`Request throughput \(req/s\): +\S+ *\nRequest goodput \(req/s\):`).MatchString(r.stdout) {
				t.Errorf("the goodput row does not follow the throughput row:\n%s", r.stdout)
			}
		})
	}
	t.Run("none", func(t *testing.T) {
		t.Parallel()
		srv := startBenchServer(t)
		r := runOmnik(t, t.TempDir(), nil, benchArgs(srv, "--num-prompts", "2")...)
		expect{code: 0, notStdout: []string{"Request goodput"}}.check(t, r)
	})
}

var resultName = regexp.MustCompile(`^(.+)-(inf|\d+\.\d+)qps(-concurrency\d+)?-(.+)-(\d{8}-\d{6})\.json$`)

// --save-result: vllm's file name and keys, the selected metrics, metadata, the detailed
// arrays, omnik's own object, and the same numbers as the printed summary.
func TestBenchSaveResult(t *testing.T) {
	t.Parallel()
	const model = "Qwen/Qwen3-Omni-30B-A3B-Instruct"
	for _, tc := range []struct {
		name     string
		args     []string
		file     string // wanted file name without the date, as label-rate-conc-model
		rate     any
		maxConc  any
		label    any
		metrics  []string // key stems present
		absent   []string // keys absent
		detailed bool
		goodput  bool
	}{
		{name: "labelled, rate, concurrency, detailed",
			args: []string{"--request-rate", "50", "--max-concurrency", "2", "--label", "L", "--metadata", "k=v", "--save-detailed",
				"--percentile-metrics", "ttft,tpot,itl,e2el", "--metric-percentiles", "50,99.9"},
			file: "L-50.0qps-concurrency2-Qwen3-Omni-30B-A3B-Instruct", rate: 50.0, maxConc: 2.0, label: "L",
			metrics: []string{"ttft_ms", "tpot_ms", "itl_ms", "e2el_ms"}, absent: []string{"p99_ttft_ms", "mean_audio_ttfp_ms"}, detailed: true},
		{name: "defaults",
			file: "openai-chat-omni-infqps-Qwen3-Omni-30B-A3B-Instruct", rate: "inf", maxConc: nil, label: nil,
			metrics: []string{"ttft_ms", "tpot_ms", "itl_ms"}, absent: []string{"mean_e2el_ms", "input_lens", "errors", "k"}},
		{name: "goodput and audio metrics",
			args: []string{"--goodput", "e2el:600000", "--percentile-metrics", "e2el,audio_ttfp,audio_rtf,audio_duration"},
			file: "openai-chat-omni-infqps-Qwen3-Omni-30B-A3B-Instruct", rate: "inf", maxConc: nil, label: nil,
			metrics: []string{"e2el_ms", "audio_ttfp_ms", "audio_rtf", "audio_duration_s"}, absent: []string{"mean_ttft_ms"}, goodput: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// Real time and 8 tokens: at 20x all of a request's chunks may be read at once,
			// and with every ITL gap 0 no request has a TPOT (the bug noted at TestBenchGoodput).
			srv := startBenchServer(t, mock.WithSpeed(1))
			dir := t.TempDir()
			const n = 4
			r := runOmnik(t, dir, nil, benchArgs(srv, append([]string{"--num-prompts", strconv.Itoa(n), "--random-output-len", "8",
				"--save-result", "--result-dir", "results"}, tc.args...)...)...)
			expect{code: 0}.check(t, r)
			entries, err := os.ReadDir(filepath.Join(dir, "results"))
			if err != nil || len(entries) != 1 {
				t.Fatalf("results dir: %v, %v; want one file", entries, err)
			}
			name := entries[0].Name()
			m := resultName.FindStringSubmatch(name)
			if m == nil || strings.TrimSuffix(name, "-"+m[5]+".json") != tc.file {
				t.Fatalf("result file %q, want %s-YYYYMMDD-HHMMSS.json", name, tc.file)
			}
			res := readResult(t, filepath.Join(dir, "results", name))
			if res["date"] != m[5] {
				t.Errorf("date %v, want the file name's %s", res["date"], m[5])
			}
			if d, err := time.ParseInLocation("20060102-150405", m[5], time.Local); err != nil || time.Since(d) > time.Minute || time.Since(d) < -time.Second {
				t.Errorf("date %s is not now (%v)", m[5], err)
			}
			for key, want := range map[string]any{
				"backend": "openai-chat-omni", "endpoint_type": "openai-chat-omni", "label": tc.label, "model_id": model,
				"tokenizer_id": model, "num_prompts": float64(n), "request_rate": tc.rate, "burstiness": 1.0,
				"max_concurrency": tc.maxConc, "completed": float64(n), "failed": 0.0,
			} {
				if got, ok := res[key]; !ok || !reflect.DeepEqual(got, want) {
					t.Errorf("%s = %#v (present %v), want %#v", key, got, ok, want)
				}
			}
			for _, key := range []string{"duration", "total_input_tokens", "total_output_tokens", "request_throughput",
				"output_throughput", "total_token_throughput", "total_audio_duration_s", "total_audio_frames", "audio_throughput",
				"total_images", "image_throughput", "average_pixels_per_image", "mean_denoise_step_latency_ms",
				"max_output_tokens_per_s", "max_concurrent_requests", "rtfx"} {
				if _, ok := res[key].(float64); !ok {
					t.Errorf("%s = %#v, want a number", key, res[key])
				}
			}
			if g, ok := res["request_goodput"]; !ok || (g == nil) == tc.goodput {
				t.Errorf("request_goodput = %#v (present %v), want %s", g, ok, map[bool]string{true: "a number", false: "null"}[tc.goodput])
			}
			percentiles := []string{"p99"}
			if tc.detailed {
				percentiles = []string{"p50", "p99.9"}
			}
			for _, stem := range tc.metrics {
				for _, p := range append([]string{"mean", "median"}, percentiles...) {
					if _, ok := res[p+"_"+stem].(float64); !ok {
						t.Errorf("%s_%s = %#v, want a number", p, stem, res[p+"_"+stem])
					}
				}
			}
			for _, key := range append(tc.absent, "std_ttft_ms") {
				if _, ok := res[key]; ok {
					t.Errorf("%s is present", key)
				}
			}
			if _, ok := res["omnik"].(map[string]any); !ok {
				t.Errorf("omnik = %#v, want an object", res["omnik"])
			}
			if tc.label == "L" && res["k"] != "v" {
				t.Errorf("metadata k = %#v, want v", res["k"])
			}
			if tc.detailed {
				for _, key := range []string{"input_lens", "output_lens", "start_times", "ttfts", "itls", "generated_texts", "errors"} {
					if a, ok := res[key].([]any); !ok || len(a) != n {
						t.Errorf("%s = %#v, want %d entries", key, res[key], n)
					}
				}
			}
			// The file and the printed summary agree.
			f2 := func(key string) string { return strconv.FormatFloat(res[key].(float64), 'f', 2, 64) }
			for label, want := range map[string]string{
				"Successful requests:":             strconv.Itoa(n),
				"Failed requests:":                 "0",
				"Benchmark duration (s):":          f2("duration"),
				"Request throughput (req/s):":      f2("request_throughput"),
				"Total input tokens:":              strconv.Itoa(int(res["total_input_tokens"].(float64))),
				"Total generated tokens:":          strconv.Itoa(int(res["total_output_tokens"].(float64))),
				"Output token throughput (tok/s):": f2("output_throughput"),
				"Total Token throughput (tok/s):":  f2("total_token_throughput"),
			} {
				if got := summaryValue(t, r.stdout, label); got != want {
					t.Errorf("summary %s %s, file %s", label, got, want)
				}
			}
			if tc.goodput {
				if got := summaryValue(t, r.stdout, "Request goodput (req/s):"); got != f2("request_goodput") {
					t.Errorf("summary goodput %s, file %s", got, f2("request_goodput"))
				}
			}
			if tc.detailed {
				if got := summaryValue(t, r.stdout, "Mean TTFT (ms):"); got != f2("mean_ttft_ms") {
					t.Errorf("summary Mean TTFT %s, file %s", got, f2("mean_ttft_ms"))
				}
				if got := summaryValue(t, r.stdout, "P99.9 E2EL (ms):"); got != f2("p99.9_e2el_ms") {
					t.Errorf("summary P99.9 E2EL %s, file %s", got, f2("p99.9_e2el_ms"))
				}
				var in float64
				for _, v := range res["input_lens"].([]any) {
					in += v.(float64)
				}
				if in != res["total_input_tokens"].(float64) {
					t.Errorf("input_lens sum to %v, total_input_tokens %v", in, res["total_input_tokens"])
				}
			}
		})
	}
}

// --result-filename replaces vllm's name; --result-dir is created when missing.
func TestBenchResultFilename(t *testing.T) {
	t.Parallel()
	srv := startBenchServer(t)
	dir := t.TempDir()
	r := runOmnik(t, dir, nil, benchArgs(srv, "--num-prompts", "1", "--save-result", "--result-dir", "a/b", "--result-filename", "mine.json")...)
	expect{code: 0}.check(t, r)
	if res := readResult(t, filepath.Join(dir, "a", "b", "mine.json")); res["completed"] != 1.0 {
		t.Errorf("completed = %v, want 1", res["completed"])
	}
}

// `omnik run` of the printed script sends the same requests as `omnik bench`.
func TestBenchPrintScriptRunsTheSame(t *testing.T) {
	t.Parallel()
	flags := []string{"--num-prompts", "6", "--seed", "5", "--random-input-len", "24", "--random-output-len", "6",
		"--random-range-ratio", "0.5", "--request-rate", "100", "--max-concurrency", "3"}
	dir := t.TempDir()
	r := runOmnik(t, dir, nil, append([]string{"bench", "--print-script"}, flags...)...)
	if r.code != 0 {
		t.Fatal(r)
	}
	if err := os.WriteFile(filepath.Join(dir, "bench.js"), []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	type lens struct{ prompt, output []int }
	collect := func(out string) lens {
		var l lens
		for _, rec := range readRecords(t, filepath.Join(dir, out)) {
			if !rec.OK() {
				t.Errorf("%s: a request failed: %+v", out, rec.Err)
			}
			l.prompt = append(l.prompt, rec.Usage.Prompt)
			l.output = append(l.output, rec.Usage.Completion)
		}
		sort.Ints(l.prompt)
		sort.Ints(l.output)
		return l
	}
	bench := runOmnik(t, dir, nil, append([]string{"bench", "-q", "--mock", "--out", "json=bench.json"}, flags...)...)
	expect{code: 0, stdout: []string{"Successful requests:                     6 "}, stderr: []string{"SIMULATED"}}.check(t, bench)
	run := runOmnik(t, dir, nil, "run", "-q", "--mock", "--out", "json=run.json", "bench.js")
	expect{code: 0, stdout: []string{"Successful requests:                     6 "}, stderr: []string{"SIMULATED"}}.check(t, run)
	b, s := collect("bench.json"), collect("run.json")
	if len(b.prompt) != 6 || !reflect.DeepEqual(b, s) {
		t.Errorf("bench sent prompts %v outputs %v; run of its script %v %v", b.prompt, b.output, s.prompt, s.output)
	}
	if slices.Equal(b.prompt[:1], b.prompt[5:]) {
		t.Errorf("prompt lengths %v do not vary with --random-range-ratio 0.5", b.prompt)
	}
}

// Warmups reach the server but no metric, record or count.
func TestBenchWarmupsAreLeftOut(t *testing.T) {
	t.Parallel()
	srv := startBenchServer(t)
	dir := t.TempDir()
	r := runOmnik(t, dir, nil, benchArgs(srv, "--num-prompts", "4", "--num-warmups", "3", "--out", "json=out.json",
		"--save-result", "--save-detailed", "--result-filename", "r.json")...)
	expect{code: 0, stdout: []string{"Successful requests:                     4 ", "Failed requests:                         0 "}}.check(t, r)
	if n := len(srv.posts()); n != 8 {
		t.Errorf("the server got %d requests, want the initial test + 3 warmups + 4", n)
	}
	if n := len(readRecords(t, filepath.Join(dir, "out.json"))); n != 4 {
		t.Errorf("%d records, want 4 (no warmups)", n)
	}
	res := readResult(t, filepath.Join(dir, "r.json"))
	if res["completed"] != 4.0 || len(res["input_lens"].([]any)) != 4 {
		t.Errorf("result completed %v, %d input_lens; want 4 and 4", res["completed"], len(res["input_lens"].([]any)))
	}
}

// Random prompts are sized with the server's /tokenize: the server's own input token
// count lands on --random-input-len (plus the chat template the simulator adds).
func TestBenchCalibratesRandomPromptsWithTokenize(t *testing.T) {
	t.Parallel()
	for _, n := range []int{32, 256} {
		r := runOmnik(t, t.TempDir(), cleanEnv(), "bench", "--mock", "-q", "--num-prompts", "5",
			"--random-input-len", strconv.Itoa(n), "--random-output-len", "2")
		if r.code != 0 {
			t.Fatalf("exit %d:\n%s", r.code, r)
		}
		perRequest := summaryFloat(t, r.stdout, "Total input tokens:") / 5
		if want := float64(n + 4); math.Abs(perRequest-want) > 0.05*want+1 {
			t.Errorf("--random-input-len %d: %.1f input tokens per request, want about %.0f", n, perRequest, want)
		}
	}
}

// dataset({calibrate: true}) in a script calibrates against the server its options name,
// once, and never against a default address while the options are being read.
func TestScriptDatasetCalibratesAgainstOptionsServer(t *testing.T) {
	t.Parallel()
	srv := startBenchServer(t)
	dir := writeFiles(t, map[string]string{"script.js": `import omni from 'omni';
import { dataset } from 'omnik/data';
const samples = dataset({ name: 'random', numPrompts: 4, randomInputLen: 64, randomOutputLen: 2, seed: 1, calibrate: true });
export const options = { iterations: 4, vus: 2, omni: { baseURL: '` + srv.URL + `' } };
export default async function () {
  await omni.chat({ messages: [{ role: 'user', content: samples[__ITER % samples.length].prompt }], max_tokens: 2 });
}`})
	r := runOmnik(t, dir, cleanEnv(), "run", "-q", "script.js")
	if r.code != 0 || strings.Contains(r.stderr, "WARN") {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if n := srv.tokenizes.Load(); n != 2 {
		t.Errorf("/tokenize called %d times, want 2 (one calibration: two probes)", n)
	}
}

// --extra-body reaches every request; --ignore-eos wins over it, on chat only.
func TestBenchExtraBodyAndIgnoreEOSOnTheWire(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		endpoint string
		eos      any // want ignore_eos in the body; nil: absent
	}{{"/v1/chat/completions", true}, {"/v1/audio/speech", false}} {
		srv := startBenchServer(t)
		// Nested values and several VUs at once: each VU has its own copy of the parameters
		// (the race detector of the binary under test watches).
		r := runOmnik(t, t.TempDir(), nil, benchArgs(srv, "--num-prompts", "8", "--max-concurrency", "4", "--endpoint", tc.endpoint,
			"--ignore-eos", "--extra-body", `{"ignore_eos":false,"top_k":5,"x":{"y":[1,{"z":2}]}}`)...)
		expect{code: 0}.check(t, r)
		for _, p := range srv.posts() {
			if body := p.json(); body["top_k"] != 5.0 || body["ignore_eos"] != tc.eos || body["x"] == nil {
				t.Errorf("%s: body %s, want top_k 5, x and ignore_eos %v", tc.endpoint, p.body, tc.eos)
			}
		}
	}
}
