package report

import (
	"bytes"
	"encoding/json"
	"github.com/omnik-dev/omnik/modules/omni/record"
	"math"
	"strings"
	"testing"
	"time"
)

var seedInfo = RunInfo{
	Date:         time.Date(2026, 6, 4, 9, 5, 7, 0, time.UTC),
	EndpointType: "openai-chat-omni", Backend: "openai-chat-omni",
	ModelID: "Qwen/Qwen3-Omni-30B-A3B-Instruct", TokenizerID: "Qwen/Qwen3-Omni-30B-A3B-Instruct",
	NumPrompts: 3, Burstiness: 1, Metadata: map[string]string{"gpu": "H100"},
}

func TestSaveResultKeysAndValues(t *testing.T) {
	t.Parallel()
	m := SaveResult(qwen3Omni(), seedInfo, seedMetrics)
	want := map[string]any{
		"date": "20260604-090507", "endpoint_type": "openai-chat-omni", "backend": "openai-chat-omni",
		"label": nil, "model_id": "Qwen/Qwen3-Omni-30B-A3B-Instruct", "num_prompts": 3, "gpu": "H100",
		"request_rate": "inf", "burstiness": 1.0, "max_concurrency": 1,
		"duration": 50.76, "completed": 3, "failed": 0, "total_input_tokens": 7536, "total_output_tokens": 4500,
		"request_throughput": 0.06, "output_throughput": 88.66, "total_token_throughput": 237.13,
		"total_audio_duration_s": 310.55, "total_audio_frames": int64(7453260), "audio_throughput": 6.12,
		"total_images": 0, "max_output_tokens_per_s": 85.0, "max_concurrent_requests": 2,
		"mean_ttft_ms": 693.16, "median_ttft_ms": 700.10, "p99_ttft_ms": 702.42,
		"mean_tpot_ms": 8.23, "p99_itl_ms": 16.43, "median_e2el_ms": 13670.22,
		"mean_audio_ttfp_ms": 1186.69, "p99_audio_rtf": 0.17,
	}
	for k, v := range want {
		if got, ok := m[k]; !ok || got != v {
			t.Errorf("%s = %#v (present %v), want %#v", k, got, ok, v)
		}
	}
	if g, ok := m["request_goodput"].(*float64); !ok || g != nil {
		t.Errorf("request_goodput = %#v, want nil", m["request_goodput"])
	}
	for k := range m {
		if strings.HasPrefix(k, "std_") || strings.Contains(k, "ttfc") || strings.Contains(k, "audio_duration_s") && k != "total_audio_duration_s" {
			t.Errorf("unexpected key %s (std, stage-only or unselected)", k)
		}
	}
	o := m["omnik"].(map[string]any)
	if stages := o["stages"].([]map[string]any); len(stages) != 3 || stages[1]["kind"] != "stream" || stages[1]["mean_ttfc_ms"] != 876.51 {
		t.Errorf("omnik stages = %v", stages)
	}
}

func TestSaveResultDropsEmptyAndTextlessMetrics(t *testing.T) {
	t.Parallel()
	slos, _ := ParseGoodput([]string{"e2el:2000"})
	r := aggregate([]*record.Record{req(at(0, 1000), image(10, 64, 5, 0))}, 2*time.Second,
		Options{Percentiles: []float64{50, 99.9}, Goodput: slos, RequestRate: 0.5})
	m := SaveResult(r, RunInfo{}, []string{"ttft", "tpot", "e2el", "audio_rtf", "audio_duration"})
	for _, k := range []string{"mean_ttft_ms", "p99.9_tpot_ms", "p50_audio_rtf"} {
		if _, ok := m[k]; ok {
			t.Errorf("text key %s saved for a run without tokens", k)
		}
	}
	for k, v := range map[string]any{"p99.9_e2el_ms": 1000.0, "mean_audio_duration_s": 0.0, "request_rate": 0.5} {
		if m[k] != v {
			t.Errorf("%s = %#v, want %#v", k, m[k], v)
		}
	}
	if g := m["request_goodput"].(*float64); *g != 0.5 {
		t.Errorf("request_goodput = %v, want 0.5", *g)
	}
}

func TestWriteResultIsFiniteJSON(t *testing.T) {
	t.Parallel()
	m := SaveResult(aggregate(nil, 0, Options{}), seedInfo, nil)
	var buf bytes.Buffer
	if err := WriteResult(&buf, m); err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back["request_rate"] != "inf" || back["max_concurrency"] != nil || back["request_goodput"] != nil {
		t.Errorf("round trip: %v", back)
	}
	if err := WriteResult(&buf, map[string]any{"x": math.NaN()}); err == nil {
		t.Error("WriteResult wrote NaN")
	}
}

func TestSaveDetailed(t *testing.T) {
	t.Parallel()
	m := map[string]any{}
	SaveDetailed(m, mixedRun())
	if got := m["output_lens"].([]int); len(got) != 5 || got[0] != 5 || got[2] != 0 {
		t.Errorf("output_lens = %v", got)
	}
	if got := m["input_lens"].([]int); got[2] != 70 {
		t.Errorf("input_lens = %v (failed requests keep their prompt length)", got)
	}
	if got := m["start_times"].([]float64); got[1] != 1.2 {
		t.Errorf("start_times = %v", got)
	}
	if got := m["itls"].([][]float64); len(got[0]) != 4 || got[0][3] != 0.6 {
		t.Errorf("itls = %v", got)
	}
	if got := m["errors"].([]string); got[2] != "http_status: HTTP 500" || got[0] != "" {
		t.Errorf("errors = %v", got)
	}
	if got := m["ttfts"].([]float64); got[0] != 0.5 || len(m["generated_texts"].([]string)) != 5 {
		t.Errorf("ttfts = %v", got)
	}
}

func TestResultFilename(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts Options
		info RunInfo
		want string
	}{
		{"unbounded rate with concurrency", Options{MaxConcurrency: 1}, seedInfo,
			"openai-chat-omni-infqps-concurrency1-Qwen3-Omni-30B-A3B-Instruct-20260604-090507.json"},
		{"label and integral rate", Options{RequestRate: 2}, RunInfo{Label: "omnik", ModelID: "m", Date: seedInfo.Date},
			"omnik-2.0qps-m-20260604-090507.json"},
		{"fractional rate", Options{RequestRate: 0.5}, RunInfo{Backend: "openai-audio-speech", ModelID: "a/b/c", Date: seedInfo.Date},
			"openai-audio-speech-0.5qps-c-20260604-090507.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := ResultFilename(aggregate(nil, 0, tt.opts), tt.info); got != tt.want {
				t.Errorf("ResultFilename = %q, want %q", got, tt.want)
			}
		})
	}
}
