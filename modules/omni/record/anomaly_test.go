package record

import (
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
)

// A server inventing stage ids (or stage_durations keys) on every event cannot grow a
// record: MaxStages are kept and the rest flagged.
func TestStagesPerResponseAreBounded(t *testing.T) {
	t.Parallel()
	b := NewBuilder(EndpointChat, time.Unix(0, 0))
	for i := range 3 * MaxStages {
		id := strconv.Itoa(i)
		b.OnStageMetrics(&chunk.Metrics{StageMetrics: map[string]chunk.Stage{id: {}}, StageDurations: chunk.Durations{{Key: id + "_gen_ms", Value: 1}}})
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
	stages := map[string]chunk.Stage{"0": {Values: map[string]float64{"stage_id": 0, "replica_id": -1, "stage_gen_time_ms": -5, "postprocess_time_ms": 2},
		Lists: map[string][]float64{"vllm_itls_ms": {1, 1e300, 3}}}}
	b := NewBuilder(EndpointChat, time.Unix(0, 0))
	b.OnStageMetrics(&chunk.Metrics{StageMetrics: stages, NumTokensOut: 1 << 40,
		StageDurations: chunk.Durations{{Key: "dit_gen_ms", Value: 1e308}, {Key: "ar_gen_ms", Value: 5}, {Key: "vae_ms", Value: -1}}, PeakMemoryMB: -3})
	b.OnTextChunk(time.Unix(0, 1), []byte("hi"), &chunk.Usage{PromptTokens: 1 << 62, CompletionTokens: -7})
	b.OnImage(time.Unix(0, 2), 1<<31-1, 1<<31-1, nil)
	b.OnImage(time.Unix(0, 3), 1<<31-1, 1<<31-1, nil)
	r := b.Finish(time.Unix(1, 0))
	st := r.Stages["0"]
	if _, ok := st.Values["stage_gen_time_ms"]; ok || st.Values["postprocess_time_ms"] != 2 || st.Values["replica_id"] != -1 || len(st.Lists["vllm_itls_ms"]) != 2 {
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
	if d := r.Images.StageDurations; len(d) != 1 || d[0] != (chunk.Duration{Key: "ar_gen_ms", Value: 5}) || r.Images.PeakMemoryMB != 0 {
		t.Errorf("durations %v, peak %v", d, r.Images.PeakMemoryMB)
	}
	if r.Images.Count != 2 || r.Images.Pixels != 0 {
		t.Errorf("images %+v", r.Images)
	}
	if !kinds[AnomalyStageValue] || !kinds[AnomalyUsageRange] || !kinds[AnomalyImageSize] {
		t.Errorf("anomalies %+v", r.Anomalies)
	}
}

// All stage lists of one response hold at most MaxStageEntries entries, however the
// server spreads them over stages and events; a stage's newer lists replace its older.
func TestStageListsPerResponseAreBounded(t *testing.T) {
	t.Parallel()
	b := NewBuilder(EndpointChat, time.Unix(0, 0))
	long := make([]float64, MaxStageEntries/2+10)
	for i := range 6 {
		id := strconv.Itoa(i % 3)
		b.OnStageMetrics(&chunk.Metrics{StageMetrics: map[string]chunk.Stage{id: {Lists: map[string][]float64{"inter_output_latencies_ms": long}}}})
	}
	r := b.Finish(time.Unix(1, 0))
	n := 0
	for _, st := range r.Stages {
		n += len(st.Lists["inter_output_latencies_ms"])
	}
	if n > MaxStageEntries || len(r.Stages) != 3 || len(long) != MaxStageEntries/2+10 {
		t.Fatalf("%d entries over %d stages", n, len(r.Stages))
	}
	if len(r.Anomalies) != 1 || r.Anomalies[0].Kind != AnomalyStagesCut {
		t.Fatalf("anomalies %+v", r.Anomalies)
	}
}

// A failure's message is a hint: at most maxMessage bytes, cut at a rune, and redacted
// before the cut, so a secret across it does not leave its start.
func TestMessagesAreBoundedAndRedacted(t *testing.T) {
	t.Parallel()
	b := NewBuilder(EndpointChat, time.Unix(0, 0))
	b.Redact([]string{"sk-secret-key"})
	b.Fail(KindStreamError, strings.Repeat("é", maxMessage/2-3)+"sk-secret-key"+strings.Repeat("x", 3<<20))
	r := b.Finish(time.Unix(1, 0))
	if m := r.Err.Message; len(m) > maxMessage+len("…") || strings.Contains(m, "sk-") || !utf8.ValidString(m) {
		t.Fatalf("%d bytes: %q", len(m), m[len(m)-40:])
	}
}

// Sentence texts count against the text limit; one that does not fit is not kept.
func TestSentenceTextsCountAgainstTheTextLimit(t *testing.T) {
	t.Parallel()
	b := NewBuilder(EndpointAudioStream, time.Unix(0, 0))
	b.SetLimits(Limits{Text: 10})
	for i, s := range []string{"Hello.", "World.", "Again."} {
		b.OnUtteranceStart(time.Unix(0, int64(i)), i, s)
	}
	r := b.Finish(time.Unix(1, 0))
	if r.Utterances[0].Text != "Hello." || r.Utterances[1].Text != "" || r.Utterances[2].Text != "" || len(r.Anomalies) != 1 {
		t.Fatalf("utterances %+v, anomalies %+v", r.Utterances, r.Anomalies)
	}
}

// A websocket session answers 101: its failures are not told apart by status.
func TestFailureGroupOfAStatus(t *testing.T) {
	t.Parallel()
	for status, want := range map[int]string{0: "tls", 101: "tls", 200: "tls", 429: "tls 429", 503: "tls 503"} {
		r := &Record{Status: status}
		if got := FailureGroup("tls", r.FailureStatus()); got != want {
			t.Errorf("status %d: %q, want %q", status, got, want)
		}
	}
}

// vLLM-Omni repeats every stage on each later chunk: a bad value is one anomaly of its
// stage, not one per chunk.
func TestARepeatedBadStageIsFlaggedOnce(t *testing.T) {
	t.Parallel()
	stages := map[string]chunk.Stage{"0": {Values: map[string]float64{"stage_gen_time_ms": -5, "postprocess_time_ms": 2}}}
	b := NewBuilder(EndpointChat, time.Unix(0, 0))
	for range 10 {
		b.OnStageMetrics(&chunk.Metrics{StageMetrics: stages})
	}
	r := b.Finish(time.Unix(1, 0))
	if len(r.Anomalies) != 1 || r.Anomalies[0].Kind != AnomalyStageValue || r.Anomalies[0].Count != 1 || len(r.Stages["0"].Values) != 1 {
		t.Fatalf("anomalies %+v, stage %+v", r.Anomalies, r.Stages["0"])
	}
}
