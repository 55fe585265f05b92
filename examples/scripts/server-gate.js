// server-gate.js: gates a model server on its own view of the load, beside the client's.
// omnik reads the server's Prometheus page (the target's /metrics) before, during and
// after the run, prints the Server metrics block and a client-vs-server table, and judges
// `server:` thresholds on it: the queue the scheduler held, the server's own TTFT, and
// whether it finished every request the client saw succeed.
//
//   omnik run --mock -e DURATION=3s examples/scripts/server-gate.js
//   omnik run --server-metrics=http://10.0.0.5:8000/metrics examples/scripts/server-gate.js
//
// Server thresholds are in the family's own unit: seconds for *_seconds and *_s. A script
// can name its page: options.omni.serverMetrics = { url, interval } (the flags override).
// docs/prometheus.md has every formula.
import omni from 'omni';

export const options = {
  scenarios: {
    chat: { executor: 'constant-vus', vus: 4, duration: __ENV.DURATION || '30s' },
  },
  thresholds: {
    ttft: ['p(99) < 2000'],
    // The scheduler's queue: requests waiting for a slot, sampled every page.
    'server:vllm:num_requests_waiting': ['max < 8'],
    // The server's own TTFT, from its histogram's buckets over the run.
    'server:vllm:time_to_first_token_seconds': ['p(99) < 2'],
    // Every request the server finished during the run, counted by the server.
    'server:vllm:request_success_total': ['count >= 1'],
  },
};

export default async function () {
  await omni.chat({
    messages: [{ role: 'user', content: 'Name three tides.' }],
    modalities: ['text'],
    max_tokens: 32,
  });
}
