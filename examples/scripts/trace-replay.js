// trace-replay.js: replay a request log at its recorded times and see how late the
// client started each request against the log. The log beside this script is in the
// Mooncake trace format (timestamp in ms, input_length, output_length, hash_ids), the one
// AIPerf and GuideLLM replay; one conversation in it carries a session_id.
//
//   omnik run --mock examples/scripts/trace-replay.js
//   omnik run --mock -e SPEED=2 examples/scripts/trace-replay.js     # twice as fast
//   omnik run -e TRACE=$PWD/mooncake_trace.jsonl examples/scripts/trace-replay.js
//
// omni.traceRequest builds each entry's prompt in Go: its 512-token blocks follow
// hash_ids, so requests that shared a prefix in the traced system share one here, and the
// server's prefix cache sees the same reuse. Turns of one session never overlap: a turn
// due while the previous one still runs waits for it, and schedule_lag shows the wait.
import omni from 'omni';
import exec from 'omnik/execution';
import { check } from 'omnik';

export const options = {
  scenarios: {
    replay: {
      executor: 'trace-replay',
      trace: __ENV.TRACE || 'trace-replay.jsonl', // relative to this script
      speed: Number(__ENV.SPEED || 1),
      preAllocatedVUs: 8,
      maxVUs: 32,
    },
  },
  thresholds: {
    requests_failed: ['rate == 0'],
    'schedule_lag{scenario:replay}': ['p(99) < 1000'],
  },
};

export default async function () {
  const entry = exec.scenario.traceEntry;
  const res = await omni.chat({ ...omni.traceRequest(entry), modalities: ['text'] });
  check(res, { 'replayed': (r) => r.ok });
}
