package record

import (
	"testing"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
	"github.com/omnik-dev/omnik/modules/omni/wav"
)

// A turn's times run from its end of speech: what came before sits at 0, flagged once
// per event, and what came after keeps its distance from the new start.
func TestRebaseMovesTheStartToTheEndOfSpeech(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	b := NewBuilder(EndpointRealtime, t0)
	b.OnTextChunk(t0.Add(100*time.Millisecond), []byte("early"), nil)
	b.Rebase(t0.Add(300 * time.Millisecond))
	b.OnAudioChunk(t0.Add(450*time.Millisecond), "pcm", chunk.AudioPiece{Format: wav.PCM16(24000, 1), Bytes: 480, Frames: 240})
	r := b.Finish(t0.Add(500 * time.Millisecond))
	if !r.Start.Equal(t0.Add(300*time.Millisecond)) || r.End != 200*time.Millisecond {
		t.Errorf("start %v, end %v; want the end of speech and 200ms after it", r.Start, r.End)
	}
	if r.TextChunks[0].At != 0 || r.AudioChunks[0].At != 150*time.Millisecond {
		t.Errorf("text at %v, audio at %v; want 0 and 150ms", r.TextChunks[0].At, r.AudioChunks[0].At)
	}
	if len(r.Anomalies) != 1 || r.Anomalies[0].Kind != AnomalyEarlyResponse || r.Anomalies[0].Count != 1 {
		t.Errorf("anomalies = %+v, want one response_before_speech_end", r.Anomalies)
	}
}
