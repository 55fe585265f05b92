// cluster-gate.js: an open-model SLO check meant to be split across machines, the scenario
// of the Kubernetes example (examples/kubernetes, docs/distributed.md).
//
//   omnik run --mock -e DURATION=3s examples/scripts/cluster-gate.js
//   OMNI_BASE_URL=http://vllm-omni:8000 omnik run --execution-segment auto examples/scripts/cluster-gate.js
//
// Arrivals follow one seeded Poisson schedule, so every instance computes the same global
// schedule and runs only the arrivals its execution segment owns; maxVUs is split between
// the instances. The thresholds are judged once, by `omnik merge`, over all the pieces:
// no abortOnFail, because one instance stopping early would cut its slice short.
import omni from 'omni';

export const options = {
  scenarios: {
    gate: {
      executor: 'poisson-arrival-rate',
      rate: Number(__ENV.RATE || 8), timeUnit: '1s', duration: __ENV.DURATION || '5m',
      seed: 42, maxVUs: 64,
    },
  },
  thresholds: {
    ttfc: ['p(99) < 2000'],
    e2el: ['p(95) < 5000'],
    requests_failed: ['rate < 0.01'],
  },
};

export default async function () {
  await omni.chat({
    messages: [{ role: 'user', content: 'Summarise the plot of Hamlet in one sentence.' }],
    modalities: ['text'],
    max_tokens: 32,
  });
}
