package omni

import (
	"math"
	"strings"
	"testing"

	"github.com/omnik-dev/omnik/mock"
)

// speechJS makes ms of a 16 kHz PCM16 tone in the script, so the tests need no asset.
const speechJS = `function speech(ms) {
  const n = 16 * ms, b = new Uint8Array(2 * n);
  for (let i = 0; i < n; i++) { const v = Math.round(8000 * Math.sin(i / 5)) & 0xffff; b[2 * i] = v & 0xff; b[2 * i + 1] = v >> 8; }
  return b.buffer;
}
`

// Each lane's session runs three turns, each timed from its end of speech, and counts
// the simulator's unknown event on every turn without failing it.
func TestRealtimeTurnsOnEveryLane(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, config string
		mock         []mock.Option
	}{
		{"vllm-omni", `{}`, nil},
		{"openai", `{ protocol: 'openai' }`, []mock.Option{mock.WithRealtimeLane(mock.RealtimeLaneOpenAI)}},
		{"duplex", `{ duplex: true }`, nil},
		{"duplex-path", `{ path: '/v1/duplex' }`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			k, sec, vu := runScript(t, `import omni from 'omni';
`+speechJS+`export default async function () {
  const r = await omni.realtime({ ...`+tc.config+`, speed: 0, turns: [{ audio: speech(300) }, { audio: speech(200) }, { audio: speech(100) }] });
  globalThis.r = JSON.stringify(r);
  globalThis.ok = r.ok && r.completed === 3 && r.planned === 3 && r.bargeIns === 0 && r.turns.length === 3 &&
    r.turns.every((x, i) => x.ok && x.turn === i && x.outcome === 'completed' && x.timings.audioTtfp > 0 && x.timings.ttft > 0 &&
      x.audio.duration > 0 && x.timings.audioRtf > 0 && x.text.length > 0 &&
      x.anomalies.some((a) => a.kind === 'unknown_event')) &&
    Math.abs(r.turns[0].speech - 0.3) < 1e-9 ? 'ok' : 'bad';
}`, tc.mock...)
			if got := vu.Runtime().Get("ok").String(); got != "ok" {
				t.Fatalf("session: %s", vu.Runtime().Get("r"))
			}
			if n := len(k.values("requests", "endpoint", "realtime")); n != 3 {
				t.Errorf("requests{endpoint:realtime} = %d samples, want one per turn (3)", n)
			}
			if n := len(k.values("audio_ttfp", "endpoint", "realtime")); n != 3 {
				t.Errorf("audio_ttfp{endpoint:realtime} = %d samples, want 3", n)
			}
			if got := k.values("realtime_turns", "", ""); len(got) != 1 || got[0] != 3 {
				t.Errorf("realtime_turns = %v, want one session of 3", got)
			}
			if got := k.values("realtime_sessions_failed", "", ""); len(got) != 1 || got[0] != 0 {
				t.Errorf("realtime_sessions_failed = %v, want [0]", got)
			}
			if n := len(k.values("request_anomalies", "anomaly", "unknown_event")); n != 3 {
				t.Errorf("request_anomalies{anomaly:unknown_event} = %d, want 3", n)
			}
			var text strings.Builder
			if err := sec.Text(&text); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(text.String(), "Successful requests:                     3 ") {
				t.Errorf("the Serving block counts a request per turn:\n%s", text.String())
			}
		})
	}
}

// A turn spoken over the duplex response barges in: the simulator cancels the response
// (response.done cancelled), the turn counts as a barge-in, and the session goes on. The
// first answer stalls before its last output (qwen3-omni's 53rd), so the speech arrives
// while it plays however late the machine runs the client.
func TestRealtimeDuplexBargeInCancelsTheResponse(t *testing.T) {
	t.Parallel()
	k, _, vu := runScript(t, `import omni from 'omni';
`+speechJS+`export default async function () {
  const r = await omni.realtime({ duplex: true, speed: 0, turns: [{ audio: speech(200) }, { audio: speech(200), bargeInMs: 0 }] },
    { headers: { 'X-Omnik-Mock-Fault': 'stall,after=52,delay=30s' } });
  globalThis.r = JSON.stringify(r);
  globalThis.got = [r.ok, r.completed, r.bargeIns, r.turns.map((x) => x.outcome + ':' + x.bargeIn).join(' ')].join(' ');
}`)
	if got, want := vu.Runtime().Get("got").String(), "true 2 1 cancelled:false completed:true"; got != want {
		t.Fatalf("session = %s, want %s\n%s", got, want, vu.Runtime().Get("r"))
	}
	if got := k.values("realtime_barge_ins", "endpoint", "realtime"); len(got) != 1 {
		t.Errorf("realtime_barge_ins = %v, want one", got)
	}
}

// A fault mid-session fails the turn it strikes with its reason; the turns after it never
// start, and the session counts as failed with that error.
func TestRealtimeMidSessionFailureEndsTheSession(t *testing.T) {
	t.Parallel()
	k, _, vu := runScript(t, `import omni from 'omni';
`+speechJS+`export default async function () {
  const r = await omni.realtime({ speed: 0, turns: [{ audio: speech(100) }, { audio: speech(100) }, { audio: speech(100) }] },
    { headers: { 'X-Omnik-Mock-Fault': 'error-event,after=60' } });
  globalThis.r = JSON.stringify(r);
  globalThis.got = [r.ok, r.completed, r.planned, r.turns.length, r.error && r.error.kind, r.error && r.error.turn,
    r.turns.map((x) => x.ok).join(',')].join(' ');
}`)
	if got, want := vu.Runtime().Get("got").String(), "false 1 3 2 stream_error_event 1 true,false"; got != want {
		t.Fatalf("session = %s, want %s\n%s", got, want, vu.Runtime().Get("r"))
	}
	if got := k.values("realtime_sessions_failed", "error", "stream_error_event"); len(got) != 1 || got[0] != 1 {
		t.Errorf("realtime_sessions_failed{error:stream_error_event} = %v, want [1]", got)
	}
	if got := k.values("requests_failed", "error", "stream_error_event"); len(got) != 1 {
		t.Errorf("requests_failed{error:stream_error_event} = %v, want the one turn", got)
	}
}

// Durations a script gives a session are finite, chunkMs at least minChunkMs, and
// silenceMs and bargeInMs not negative: anything else is refused before a dial.
func TestRealtimeRefusesBadDurations(t *testing.T) {
	t.Parallel()
	inf, nan := math.Inf(1), math.NaN()
	for _, tc := range []struct {
		name string
		key  string // "chunkMs" at the top, else on the second turn
		v    float64
		ok   bool
	}{
		{"chunk floor", "chunkMs", minChunkMs, true},
		{"chunk 100", "chunkMs", 100, true},
		{"chunk tiny", "chunkMs", 1, false},
		{"chunk infinite", "chunkMs", inf, false},
		{"chunk NaN", "chunkMs", nan, false},
		{"chunk huge", "chunkMs", 1e300, false},
		{"silence 0", "silenceMs", 0, true},
		{"silence 500", "silenceMs", 500, true},
		{"silence negative", "silenceMs", -1, false},
		{"silence infinite", "silenceMs", inf, false},
		{"silence NaN", "silenceMs", nan, false},
		{"barge-in 0", "bargeInMs", 0, true},
		{"barge-in negative", "bargeInMs", -0.5, false},
		{"barge-in infinite", "bargeInMs", inf, false},
		{"barge-in NaN", "bargeInMs", nan, false},
	} {
		audio := binary(make([]byte, 320))
		second := map[string]any{"audio": audio}
		body := map[string]any{"turns": []any{map[string]any{"audio": audio}, second}}
		if tc.key == "chunkMs" {
			body[tc.key] = tc.v
		} else {
			second[tc.key] = tc.v
		}
		_, err := parseRealtime(body)
		if (err == nil) != tc.ok {
			t.Errorf("%s: %s %v: err %v, want ok %v", tc.name, tc.key, tc.v, err, tc.ok)
		}
	}
}
