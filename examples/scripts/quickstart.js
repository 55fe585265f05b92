// quickstart.js: a chat with streamed text and audio, checked and gated by thresholds.
//
//   omnik run --mock examples/scripts/quickstart.js        # against the built-in simulator
//   omnik run --base-url http://gpu-box:8000 examples/scripts/quickstart.js
//
// Each VU sends one chat request per iteration; omnik times every chunk in Go and prints
// the Serving and Stage Benchmark Result blocks of `vllm bench serve --omni` at the end.
// Exit code 99 when a threshold fails.
import omni from 'omni';
import { check } from 'omnik';

export const options = {
  vus: 4,
  duration: __ENV.DURATION || '10s',
  thresholds: {
    ttfc: ['p(99) < 3000'],
    requests_failed: ['rate < 0.01'],
    'ttft{modality:text}': ['avg < 2000'],
  },
};

export default async function () {
  const res = await omni.chat({
    messages: [{ role: 'user', content: 'Describe a sunrise over the sea in two sentences.' }],
    modalities: ['text', 'audio'],
    max_tokens: 64,
  });
  check(res, {
    'status is 200': (r) => r.status === 200,
    'got text': (r) => r.text.length > 0,
    'got audio': (r) => r.audio.duration > 0,
  });
}
