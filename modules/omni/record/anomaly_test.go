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
