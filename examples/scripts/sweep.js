// sweep.js: how much load can the server take while TTFT p99 stays under 900 ms, no
// request fails and the scheduler queues nothing? omnik sweep runs the chat scenario at
// rising arrival rates (1, 2, 4, … req/s), then bisects between the highest that passed
// and the lowest that failed, each step after a warm-up it leaves out, and prints one
// table and the answer.
//
//   omnik sweep --mock examples/scripts/sweep.js
//   omnik sweep --base-url http://gpu-host:8000 --rate 0.5:32 examples/scripts/sweep.js
//   omnik run --mock -e DURATION=3s examples/scripts/sweep.js   # one plain run at rate 2
//
// -e WARMUP=2s -e STEP=5s shorten the steps. docs/sweep.md has the search and the table.
import omni from 'omni';

export const options = {
  scenarios: {
    chat: { executor: 'constant-arrival-rate', rate: 2, duration: __ENV.DURATION || '1m', preAllocatedVUs: 32, maxVUs: 256 },
  },
  thresholds: {
    ttft: ['p(99) < 900'],
    requests_failed: ['rate < 0.01'],
    // The server's own queue, read from its /metrics while the step runs.
    'server:vllm:num_requests_waiting': ['max < 1'],
  },
  // omnik run ignores this; omnik sweep reads it (flags override it key by key).
  sweep: { rate: [1, 64], precision: 0.05, warmup: __ENV.WARMUP || '10s', duration: __ENV.STEP || '30s', maxTime: '30m' },
  omni: { serverMetrics: { interval: '500ms' } },
};

export default async function () {
  await omni.chat({
    messages: [{ role: 'user', content: 'Describe a lighthouse at dusk in one paragraph.' }],
    modalities: ['text'],
    max_tokens: 64,
  });
}
