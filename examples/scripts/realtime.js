// realtime.js: spoken conversations over /v1/realtime. "turns" holds a three-turn
// session on vLLM-Omni's default lane, the speech streamed at real time and each turn
// ended with a commit; "duplex" talks over the model's answer on the full-duplex lane
// (?duplex=1), a barge-in the server answers by cancelling its response.
//
//   omnik run --mock examples/scripts/realtime.js
//   omnik run --mock -e DURATION=2s examples/scripts/realtime.js   # a short run
//   omnik run --base-url http://omni-box:8091 -e SPEECH=question_16k.wav examples/scripts/realtime.js
//
// Every turn is one request: its TTFT, AUDIO_TTFP, AUDIO_RTF and E2EL run from the end
// of the user's speech, as vLLM-Omni's realtime benchmark measures them, so they fill
// the Serving block like any request. realtime_sessions_failed gates whole sessions and
// realtime_barge_ins counts the turns spoken over an answer. Exit code 99 when a
// threshold fails.
import omni from 'omni';
import { check } from 'omnik';

const duration = __ENV.DURATION || '10s';

// The speech: a 16 kHz mono PCM16 WAV given with -e SPEECH=..., else a tone made here.
const speech = __ENV.SPEECH ? open(__ENV.SPEECH, 'b') : tone(400);

function tone(ms) {
  const n = 16 * ms, b = new Uint8Array(2 * n);
  for (let i = 0; i < n; i++) {
    const v = Math.round(6000 * Math.sin((2 * Math.PI * 220 * i) / 16000)) & 0xffff;
    b[2 * i] = v & 0xff;
    b[2 * i + 1] = v >> 8;
  }
  return b.buffer;
}

export const options = {
  scenarios: {
    turns: { executor: 'constant-vus', vus: 2, duration, exec: 'turns' },
    duplex: { executor: 'constant-vus', vus: 1, duration, exec: 'duplex' },
  },
  thresholds: {
    realtime_sessions_failed: ['rate < 0.01'],
    'audio_ttfp{endpoint:realtime}': ['p(95) < 3000'],
    'ttft{endpoint:realtime}': ['p(95) < 3000'],
    'audio_rtf{scenario:turns}': ['p(95) < 1'],
    'realtime_barge_ins{scenario:duplex}': ['count > 0'],
    checks: ['rate == 1'],
  },
};

export async function turns() {
  const s = await omni.realtime({ speed: 1, turns: [{ audio: speech }, { audio: speech }, { audio: speech }] });
  check(s, {
    'session ok': (r) => r.ok,
    'three turns answered': (r) => r.completed === 3,
    'every turn has audio and text': (r) => r.turns.every((t) => t.audio.duration > 0 && t.text.length > 0),
  });
}

export async function duplex() {
  // The second turn starts 100 ms into the first answer's audio, while it plays; a server
  // still generating it cancels it (turns[0].outcome is then "cancelled").
  const s = await omni.realtime({ duplex: true, speed: 1, turns: [{ audio: speech }, { audio: speech, bargeInMs: 100 }] });
  check(s, {
    'duplex ok': (r) => r.ok,
    'the second turn talks over the answer': (r) => r.turns[1].bargeIn,
  });
}
