package record

import (
	"strconv"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
)

// A server inventing stage ids (or stage_durations keys) on every event cannot grow a
// record: MaxStages are kept and the rest flagged.
func TestStagesPerResponseAreBounded(t *testing.T) {
	t.Parallel()
	b := NewBuilder(EndpointChat, time.Unix(0, 0))
	for i := range 3 * MaxStages {
		id := strconv.Itoa(i)
		b.OnStageMetrics(&chunk.Metrics{StageMetrics: map[string]chunk.Stage{id: {}}, StageDurations: map[string]float64{id + "_gen_ms": 1}})
	}
	r := b.Finish(time.Unix(1, 0))
	if len(r.Stages) != MaxStages || len(r.Images.StageDurations) != MaxStages {
		t.Fatalf("%d stages and %d durations kept", len(r.Stages), len(r.Images.StageDurations))
	}
	if len(r.Anomalies) != 1 || r.Anomalies[0].Kind != AnomalyStagesCut || r.Anomalies[0].Count != 4*MaxStages {
		t.Fatalf("anomalies %+v", r.Anomalies)
	}
}

// Sentences count against Limits.Chunks as chunks do: endless audio.start messages end
// the session.
func TestSentencesCountAsChunks(t *testing.T) {
	t.Parallel()
	b := NewBuilder(EndpointAudioStream, time.Unix(0, 0))
	b.SetLimits(Limits{Chunks: 10})
	for i := range 100 {
		b.OnUtteranceStart(time.Unix(0, int64(i)), i, "s")
	}
	r := b.Finish(time.Unix(1, 0))
	if len(r.Utterances) != 10 || r.Err == nil || r.Err.Kind != KindOversized {
		t.Fatalf("%d sentences, err %+v", len(r.Utterances), r.Err)
	}
}

// A stage's negative or absurd values are dropped and flagged, without touching the
// decoder's maps; absurd token counts are bounded, so no sum can wrap or reach +Inf.
func TestServerNumbersOutOfRangeAreBounded(t *testing.T) {
	t.Parallel()
	stages := map[string]chunk.Stage{"0": {Values: map[string]float64{"stage_id": 0, "stage_gen_time_ms": -5, "postprocess_time_ms": 2},
		Lists: map[string][]float64{"vllm_itls_ms": {1, 1e300, 3}}}}
	b := NewBuilder(EndpointChat, time.Unix(0, 0))
	b.OnStageMetrics(&chunk.Metrics{StageMetrics: stages, NumTokensOut: 1 << 40})
	b.OnTextChunk(time.Unix(0, 1), []byte("hi"), &chunk.Usage{PromptTokens: 1 << 62, CompletionTokens: -7})
	b.OnImage(time.Unix(0, 2), 1<<31-1, 1<<31-1, nil)
	b.OnImage(time.Unix(0, 3), 1<<31-1, 1<<31-1, nil)
	r := b.Finish(time.Unix(1, 0))
	st := r.Stages["0"]
	if _, ok := st.Values["stage_gen_time_ms"]; ok || st.Values["postprocess_time_ms"] != 2 || len(st.Lists["vllm_itls_ms"]) != 2 {
		t.Errorf("stage kept %+v", st)
	}
	if stages["0"].Values["stage_gen_time_ms"] != -5 {
		t.Error("the decoder's map was changed")
	}
	if r.Usage.Prompt != MaxTokens || r.Usage.Completion != MaxTokens || r.TextChunks[0].Tokens != 0 {
		t.Errorf("usage %+v, chunk tokens %d", r.Usage, r.TextChunks[0].Tokens)
	}
	kinds := map[string]bool{}
	for _, a := range r.Anomalies {
		kinds[a.Kind] = true
	}
	if r.Images.Count != 2 || r.Images.Pixels != 0 {
		t.Errorf("images %+v", r.Images)
	}
	if !kinds[AnomalyStageValue] || !kinds[AnomalyUsageRange] || !kinds[AnomalyImageSize] {
		t.Errorf("anomalies %+v", r.Anomalies)
	}
}
