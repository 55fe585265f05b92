package client

import (
	"slices"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/record"
	"github.com/omnik-dev/omnik/modules/omni/wav"
)

// FuzzRealtimeEvent feeds any message to a turn awaiting its response: it must never
// panic, and the turn ends up with one record, failed only with a known kind.
func FuzzRealtimeEvent(f *testing.F) {
	for _, s := range []string{
		`{"type":"response.audio.delta","audio":"AAAA","sample_rate_hz":16000}`,
		`{"type":"response.output_audio.delta","delta":"AAAAAAAA","sample_rate_hz":-5}`,
		`{"type":"transcription.done","text":"x","usage":{"prompt_tokens":99999999999,"completion_tokens":-1}}`,
		`{"type":"response.done","response":{"status":"failed","status_details":{"error":{"message":"m"}}}}`,
		`{"type":"response.done","response":null}`,
		`{"type":"error","error":{"message":"m"},"code":7}`,
		`{"type":"session.created","session":{"id":""}}`,
		`{"type":"response.listen"}`, `{"type":"x"}`, `{"type":1}`, `[]`, `null`,
	} {
		f.Add([]byte(s))
	}
	kinds := append(record.ErrorKinds(), record.KindInterrupted)
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := parseRealtimeEvent(data)
		if err != nil {
			return
		}
		for _, lane := range []string{record.RealtimeOmni, record.RealtimeOpenAI, record.RealtimeASR} {
			now := time.Now()
			b := record.NewBuilder(record.EndpointRealtime, now)
			b.SetLimits(record.Limits{Text: 64, Chunks: 4})
			s := &rtSession{req: &RealtimeRequest{Lane: lane, Output: wav.PCM16(24000, 1),
				Turns: []RealtimeTurn{{Audio: []byte{0, 0}, Format: wav.PCM16(16000, 1)}}},
				turns: []*rtTurn{{b: b, started: true, speechEnd: now, ended: make(chan struct{}), audible: make(chan struct{})}}}
			s.event(now, &ev)
			s.event(now, &ev)
			recs := s.records(now)
			if len(recs) != 1 || !recs[0].Realtime.Last {
				t.Fatalf("%d records for one turn", len(recs))
			}
			if e := recs[0].Err; e != nil && !slices.Contains(kinds, e.Kind) {
				t.Fatalf("unknown error kind %q", e.Kind)
			}
		}
	})
}
