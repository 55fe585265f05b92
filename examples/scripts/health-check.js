// health-check.js: check the server is up before the load, poll its health while the
// load runs, and write the summary with textSummary, k6-style.
//
//   omnik run --mock examples/scripts/health-check.js
//   omnik run --base-url http://gpu-box:8000 --http-debug examples/scripts/health-check.js
//
// omnik/http is for the side requests around a benchmark: setup() fails the run at once
// when /health does not answer 200, the `health` scenario polls it every second and its
// http_req_failed threshold fails the run when the server flapped. Relative URLs go to
// the omni server (--base-url, options.omni.baseURL or the simulator). --http-debug
// prints every request with credentials redacted; --http-debug=full adds the bodies.
import http from 'omnik/http';
import omni from 'omni';
import { check, fail, group } from 'omnik';
import { textSummary } from 'omnik/summary';

const duration = __ENV.DURATION || '10s';

export const options = {
  scenarios: {
    load: { executor: 'constant-vus', vus: 2, duration, exec: 'chat' },
    health: { executor: 'constant-arrival-rate', rate: 1, timeUnit: '1s', duration, preAllocatedVUs: 1, exec: 'health' },
  },
  thresholds: {
    'http_req_failed{scenario:health}': ['rate == 0'],
    'http_req_duration{name:health}': ['p(99) < 1000'],
    requests_failed: ['rate < 0.01'],
  },
};

export function setup() {
  const res = http.get('/health', { tags: { name: 'health' } });
  if (res.status !== 200) {
    fail(`server not healthy: ${res.status} ${res.error}`);
  }
  const models = http.get('/v1/models').json();
  return { model: models.data[0].id };
}

export function health() {
  const res = http.get('/health', { tags: { name: 'health' }, timeout: '5s' });
  check(res, { 'health is 200': (r) => r.status === 200 });
}

export async function chat(data) {
  await group('chat', async () => {
    const res = await omni.chat({
      model: data.model,
      messages: [{ role: 'user', content: 'Say hello in five words.' }],
      modalities: ['text'],
      max_tokens: 16,
    });
    check(res, { 'chat ok': (r) => r.ok });
  });
}

export function handleSummary(data) {
  return { stdout: textSummary(data), 'health-summary.json': JSON.stringify(data.metrics.http_reqs || {}) };
}
