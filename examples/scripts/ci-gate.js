// ci-gate.js: a CI check of a model server that fails the build on slow first chunks or
// errors.
//
//   omnik run --mock -e DURATION=3s examples/scripts/ci-gate.js && echo "server OK"
//
// Exit codes (docs/cli.md): 0 when every threshold passed, 99 when one failed (the
// summary shows which, with the observed value), 104 when the script or its options are
// invalid. `abortOnFail` stops the run as soon as the error rate is clearly too high, so a
// broken deployment fails in seconds.
import omni from 'omni';

export const options = {
  scenarios: {
    gate: {
      executor: 'constant-arrival-rate',
      rate: 1, timeUnit: '1s', duration: __ENV.DURATION || '30s',
      preAllocatedVUs: 4, maxVUs: 16,
    },
  },
  thresholds: {
    ttfc: ['p(99) < 2000'],
    e2el: ['p(95) < 5000'],
    requests_failed: [{ threshold: 'rate < 0.01', abortOnFail: true, delayAbortEval: '2s' }],
    // A server that claims more tokens than it sent, or streams a modality nobody asked
    // for, is broken even when every request "succeeds" (docs/scripting.md, anomalies).
    'request_anomalies{anomaly:usage_exceeds_received}': ['count == 0'],
    'request_anomalies{anomaly:unknown_modality}': ['count == 0'],
  },
};

export default async function () {
  await omni.chat({
    messages: [{ role: 'user', content: 'ping' }],
    modalities: ['text'],
    max_tokens: 8,
  });
}
