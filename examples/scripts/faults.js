// faults.js: how a failing server shows up. Run it against the simulator with injected
// HTTP 500s; failed requests resolve with ok: false (they never throw), are counted in
// requests_failed, and the threshold turns the run red.
//
//   omnik run --mock --mock-faults 'http500,p=0.5' examples/scripts/faults.js
//
// Exit code 99: requests_failed is above 1%.
// e2e: exit=99 --mock-faults=http500,p=0.5 -e ITERATIONS=10
import omni from 'omni';
import { check } from 'omnik';

export const options = {
  vus: 2,
  iterations: Number(__ENV.ITERATIONS || 20),
  thresholds: { requests_failed: ['rate < 0.01'] },
};

export default async function () {
  const res = await omni.chat({ messages: [{ role: 'user', content: 'Hi' }], max_tokens: 8 });
  if (!res.ok) console.warn(`request failed: ${res.error.kind} ${res.status}`);
  check(res, { 'a failure has an error kind': (r) => r.ok || r.error.kind === 'http_status' });
}
