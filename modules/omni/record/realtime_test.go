package record

import (
	"encoding/json"
	"strings"
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

// A session's first turn carries the executor's intended start; its start lag is how
// late the session dialed, and the speech before the turn's rebased start is not lag.
func TestRebaseKeepsTheStartLagOfTheDial(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	b := NewBuilder(EndpointRealtime, t0)
	b.SetIntendedStart(t0.Add(-5 * time.Millisecond))
	b.Rebase(t0.Add(1500 * time.Millisecond))
	r := b.Finish(t0.Add(1700 * time.Millisecond))
	if lag := r.Start.Sub(r.IntendedStart); lag != 5*time.Millisecond {
		t.Errorf("start lag %v, want the dial's 5ms", lag)
	}
	if v := E2ELFromIntended(r); v != 205*time.Millisecond {
		t.Errorf("e2el from intended %v, want the turn's 200ms plus the lag", v)
	}
	if b, err := json.Marshal(r); err != nil || !strings.Contains(string(b), `"start_lag_ms":5,`) {
		t.Errorf("record %s (%v), want start_lag_ms 5", b, err)
	}
	b = NewBuilder(EndpointRealtime, t0) // a later turn has none
	b.Rebase(t0.Add(time.Second))
	if r := b.Finish(t0.Add(2 * time.Second)); !r.IntendedStart.IsZero() {
		t.Errorf("a turn without an intended start got %v", r.IntendedStart)
	}
}
