// speech-stream.js: the same text spoken three ways, side by side. "http" streams raw PCM
// from POST /v1/audio/speech; "staged" asks the same endpoint for its stage metrics,
// which switches it to SSE events (as vllm bench serve --print-stage does), and reads
// each stage, the server's profile (peak memory, stage durations) and the hand-off
// between the talker and code2wav; "websocket" feeds the text to /v1/audio/speech/stream
// a few words at a time, the way an LLM would hand its tokens to a TTS, and gets audio
// back sentence by sentence.
//
//   omnik run --mock examples/scripts/speech-stream.js
//   omnik run --mock -e DURATION=2s examples/scripts/speech-stream.js   # a short run
//   omnik run --base-url http://tts-box:8091 -e TTS_MODEL=Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice examples/scripts/speech-stream.js
//
// Thresholds compare time to first audio (audio_ttfp) per scenario and gate continuity:
// audio_underrun is the longest stall a listener would hear, playing from the first
// audio with no buffer. utterance_ttfp is the websocket's wait per sentence;
// stream_edge_handoff is how long code2wav took to accept the talker's first codes.
// Exit code 99 when a threshold fails.
import omni from 'omni';
import { check } from 'omnik';

const duration = __ENV.DURATION || '10s';
const model = __ENV.TTS_MODEL || 'Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice';
const text = 'The tide went out at dawn. Gulls followed the boats home. By noon the harbour was quiet again.';

export const options = {
  scenarios: {
    http: { executor: 'constant-vus', vus: 2, duration, exec: 'http' },
    staged: { executor: 'constant-vus', vus: 1, duration, exec: 'staged' },
    websocket: { executor: 'constant-vus', vus: 2, duration, exec: 'websocket' },
  },
  thresholds: {
    requests_failed: ['rate < 0.01'],
    'audio_ttfp{scenario:http}': ['p(95) < 2000'],
    'audio_ttfp{scenario:websocket}': ['p(95) < 3000'],
    'utterance_ttfp{scenario:websocket}': ['p(95) < 1500'],
    'stream_edge_handoff{edge:0->1:0}': ['p(95) < 200'],
    'audio_underrun': ['p(99) < 500'],
    checks: ['rate == 1'],
  },
};

export async function http() {
  const res = await omni.audio.speech({ model, input: text, voice: 'vivian', response_format: 'pcm' }, { sampleRate: 24000 });
  check(res, { 'speech ok': (r) => r.ok, 'speech has audio': (r) => r.audio.duration > 0 });
}

export async function staged() {
  const res = await omni.audio.speech({ model, input: text, voice: 'vivian', response_format: 'pcm', return_stage_metrics: true });
  const edge = res.streamEdges['0->1:0'];
  check(res, {
    'staged ok': (r) => r.ok && r.audio.duration > 0,
    'every stage reported': (r) => 'talker' in r.stages && 'code2wav' in r.stages,
    'a profile': (r) => r.peakMemoryMb > 0 && Object.keys(r.stageDurations).length > 0,
    'a hand-off': () => edge !== undefined && edge.handoff >= 0,
  });
}

export async function websocket() {
  const res = await omni.audio.stream(
    { model, voice: 'vivian', response_format: 'pcm', stream_audio: true, split_granularity: 'sentence', input: text },
    { pace: { tokensPerSecond: 30 } },
  );
  check(res, {
    'stream ok': (r) => r.ok,
    'one utterance per sentence': (r) => r.utterances.length === 3,
    'every sentence has audio': (r) => r.utterances.every((u) => u.duration > 0),
  });
}
