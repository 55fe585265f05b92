// ab-targets.js: two servers compared in one run, request by request.
//
//   omnik run --base-url http://a:8000 -e B_URL=http://b:8000 examples/scripts/ab-targets.js
//   omnik run --mock examples/scripts/ab-targets.js     # B is the same simulator under the name b
//
// Every call on the default client is mirrored to B: the same body at the same moment,
// and the iteration goes on once both answered, so both servers see the same load. The
// summary ends with the A/B block: each target's Serving rows side by side with the
// differences from the default target, then the paired differences of the mirrored
// calls (b − default) with a sign test. Without B_URL the mirror goes to the default
// target's server (a self-comparison, which shows the block and how noisy it is).
// Exit code 99 when a threshold fails.
import omni from 'omni';
import { check } from 'omnik';

const b = omni.client({ baseURL: __ENV.B_URL, target: 'b', mirror: true });

export const options = {
  vus: 2,
  duration: __ENV.DURATION || '20s',
  thresholds: {
    // Each side gated on its own: the default client's requests are target:default.
    'ttft{target:default}': ['p(99) < 3000'],
    'ttft{target:b}': ['p(99) < 3000'],
    'requests_failed{target:b}': ['rate < 0.01'],
  },
};

export default async function () {
  const res = await omni.chat({
    messages: [{ role: 'user', content: 'Describe a harbour at dawn in two sentences.' }],
    modalities: ['text'],
    max_tokens: 48,
    seed: __ITER, // one seed a call: both servers sample the same way
  });
  check(res, {
    'default ok': (r) => r.ok,
    'b ok': (r) => r.mirrors.every((m) => m.ok),
  });
}
