package mock

import (
	"encoding/json"
	"math"
	"testing"
	"time"
)

// TestStageMetricsAgreeWithWhatTheClientSees pins the relations of
// omni-metrics.md §6.1 and that the server's clock matches the client's.
func TestStageMetricsAgreeWithWhatTheClientSees(t *testing.T) {
	t.Parallel()
	_, u := startServer(t, WithSpeed(2))
	sent := time.Now()
	chunks := parseChunks(t, mustSSE(t, post(t, u+chatURL, streamChat)))
	e2e := chunks[len(chunks)-1].at.Sub(sent)

	var firstText, firstAudio time.Duration
	frames, textChunks, audioChunks := 0, 0, 0
	thinkerSeenAt, lastText := -1, -1
	for i, c := range chunks {
		var m metricsObject
		if c.Metrics != nil {
			_ = json.Unmarshal(c.Metrics, &m)
		}
		if _, ok := m.StageMetrics["0"]; ok && thinkerSeenAt < 0 {
			thinkerSeenAt = i
		}
		switch c.Modality {
		case "text":
			if c.text() != "" {
				textChunks++
				lastText = i
				if firstText == 0 {
					firstText = c.at.Sub(sent)
				}
			}
		case "audio":
			audioChunks++
			if firstAudio == 0 {
				firstAudio = c.at.Sub(sent)
			}
			frames += len(parseWAV(t, b64(t, c.text())).pcm) / 2
		}
	}
	// The thinker's entry appears on its own last chunk, not before.
	if thinkerSeenAt != lastText {
		t.Errorf("stage 0 metrics first on chunk %d, want the last text chunk %d", thinkerSeenAt, lastText)
	}
	var m metricsObject
	if err := json.Unmarshal(chunks[len(chunks)-1].Metrics, &m); err != nil {
		t.Fatal(err)
	}
	thinker, talker, code2wav := m.StageMetrics["0"], m.StageMetrics["1"], m.StageMetrics["2"]
	const slack = 250 * time.Millisecond // the client's stamps trail the server's
	msd := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

	t.Run("thinker", func(t *testing.T) {
		s := thinker
		if s.StageName != "thinker" || s.OutputUnitType != "text" || s.NumTokensIn == nil || s.NumTokensOut != 48 || s.OutputUnitCount != 48 {
			t.Fatalf("%+v", s)
		}
		if s.ServingTTFOMs > s.StageGenTimeMs {
			t.Errorf("serving TTFO %v > stage gen time %v", s.ServingTTFOMs, s.StageGenTimeMs)
		}
		if got := msd(s.ServingTTFOMs); got > firstText || firstText-got > slack {
			t.Errorf("serving TTFT %v, client TTFT %v", got, firstText)
		}
		if len(s.InterOutputLatenciesMs) != textChunks-1 || len(s.VllmITLsMs) != 47 {
			t.Errorf("ICL %d entries, ITLs %d, for %d chunks", len(s.InterOutputLatenciesMs), len(s.VllmITLsMs), textChunks)
		}
		sumICL := 0.0
		for _, v := range s.InterOutputLatenciesMs {
			sumICL += v
		}
		if math.Abs(s.TimePerOutputUnitMs*47-sumICL) > 1 || s.VllmTPOTMs == nil || math.Abs(*s.VllmTPOTMs-s.TimePerOutputUnitMs) > 0.05 {
			t.Errorf("TPOP %v ×47 vs ΣICL %v, vllm_tpot %v", s.TimePerOutputUnitMs, sumICL, s.VllmTPOTMs)
		}
	})
	t.Run("talker", func(t *testing.T) {
		s := talker
		if s.StageName != "talker" || s.OutputUnitType != "stream" || s.NumTokensIn != nil || len(s.InterOutputLatenciesMs) != s.OutputUnitCount-1 {
			t.Fatalf("%+v", s)
		}
		if s.ServingTTFOMs < thinker.ServingTTFOMs || s.TimePerOutputUnitMs <= 0 {
			t.Errorf("talker TTFC %v before the thinker's first output %v", s.ServingTTFOMs, thinker.ServingTTFOMs)
		}
	})
	t.Run("code2wav", func(t *testing.T) {
		s := code2wav
		if s.OutputUnitType != "audio" || s.AudioFrames != frames || s.OutputUnitCount != frames || s.AudioSampleRate != 24000 ||
			s.AudioDurationS != float64(frames)/24000 || len(s.InterOutputLatenciesMs) != audioChunks-1 || s.TimePerOutputUnitMs != 0 {
			t.Fatalf("%+v (client frames %d, chunks %d)", s, frames, audioChunks)
		}
		if got := msd(s.ServingTTFOMs); got > firstAudio || firstAudio-got > slack {
			t.Errorf("serving TTFP %v, client TTFP %v", got, firstAudio)
		}
		if got := msd(s.StageGenTimeMs); got > e2e {
			t.Errorf("stage ran %v, longer than the request %v", got, e2e)
		}
	})
	if m.StageID != 2 || m.FinalOutputType != "audio" {
		t.Errorf("top-level keys = stage %d %s, want the last stage's", m.StageID, m.FinalOutputType)
	}
}

func TestEngineITLsCountTokensNotChunks(t *testing.T) {
	t.Parallel()
	chunky := Profile{Name: "qwen3-omni", Stages: []Stage{{Name: "thinker", UnitsPerChunk: 4}}}
	b, _ := json.Marshal(map[string]any{"name": "qwen3-omni", "stages": []any{map[string]any{"name": "thinker", "units_per_chunk": 4}}})
	if err := json.Unmarshal(b, &chunky); err != nil {
		t.Fatal(err)
	}
	_, u := startServer(t, WithProfiles(chunky))
	chunks := parseChunks(t, mustSSE(t, post(t, u+chatURL,
		`{"messages":[{"role":"user","content":"x"}],"modalities":["text"],"stream":true,"max_tokens":10,"return_stage_metrics":true,
		  "stream_options":{"include_usage":true,"continuous_usage_stats":true}}`)))
	var m metricsObject
	_ = json.Unmarshal(chunks[len(chunks)-1].Metrics, &m)
	s := m.StageMetrics["0"]
	// 10 tokens in chunks of 4, 4, 2: three outputs, nine token gaps.
	if len(chunks) != 5 || s.OutputUnitCount != 10 || len(s.InterOutputLatenciesMs) != 2 || len(s.VllmITLsMs) != 9 || s.FinishReason != "length" {
		t.Fatalf("%d chunks; stage %+v", len(chunks), s)
	}
}
