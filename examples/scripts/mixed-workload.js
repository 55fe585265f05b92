// mixed-workload.js: text+audio chat, speech and image generation side by side, each with
// its own executor and tags, so the summary shows a Serving block per scenario.
//
//   omnik run --mock examples/scripts/mixed-workload.js
//   omnik run --mock -e DURATION=3s examples/scripts/mixed-workload.js   # a short run
import omni from 'omni';
import { check } from 'omnik';

const duration = __ENV.DURATION || '20s';

export const options = {
  scenarios: {
    chat: { executor: 'constant-vus', vus: 3, duration, exec: 'chat', tags: { workload: 'chat' } },
    speech: {
      executor: 'constant-arrival-rate', rate: 4, timeUnit: '1s', duration,
      preAllocatedVUs: 4, maxVUs: 16, exec: 'speech', tags: { workload: 'tts' },
    },
    images: {
      executor: 'poisson-arrival-rate', rate: 1, timeUnit: '1s', duration, maxVUs: 4, seed: 7,
      exec: 'image', tags: { workload: 'image' },
    },
  },
  thresholds: {
    'requests_failed{workload:chat}': ['rate < 0.05'],
    'audio_ttfp{workload:tts}': ['p(95) < 2000'],
    'e2el{workload:image}': ['p(99) < 20000'],
  },
};

export async function chat() {
  const r = await omni.chat({
    model: 'Qwen/Qwen3-Omni-30B-A3B-Instruct',
    messages: [{ role: 'user', content: 'Tell me about the tide.' }],
    max_tokens: 48,
  });
  check(r, { 'chat ok': (x) => x.ok });
}

export async function speech() {
  const r = await omni.audio.speech({
    model: 'Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice',
    input: 'The quick brown fox jumps over the lazy dog.',
    voice: 'vivian',
  });
  check(r, { 'speech has audio': (x) => x.audio.duration > 0 });
}

export async function image() {
  const r = await omni.images.generate({
    model: 'ByteDance-Seed/BAGEL-7B-MoT', prompt: 'a lighthouse at dusk', size: '256x256',
  });
  check(r, { 'one image': (x) => x.images.count === 1 });
}
