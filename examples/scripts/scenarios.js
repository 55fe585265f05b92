// scenarios.js: two scenarios side by side, a custom metric, groups and per-scenario
// thresholds.
//
//   omnik run --mock examples/scripts/scenarios.js
//   omnik run --mock -e DURATION=2s examples/scripts/scenarios.js   # a short run
//
// "chat" sends text-only chats at a fixed arrival rate; "voice" has each of its VUs run a
// few text+audio chats. Thresholds select a scenario with {scenario:NAME}. Exit code 99
// when a threshold fails.
import omni from 'omni';
import { check, group } from 'omnik';
import { Trend } from 'omnik/metrics';
import exec from 'omnik/execution';

const words = new Trend('words_per_reply');
const duration = __ENV.DURATION || '10s';

export const options = {
  scenarios: {
    chat: { executor: 'constant-arrival-rate', rate: 4, timeUnit: '1s', duration, preAllocatedVUs: 2, maxVUs: 4 },
    voice: { executor: 'per-vu-iterations', vus: 2, iterations: 2, maxDuration: duration, exec: 'voice' },
  },
  thresholds: {
    'requests_failed': ['rate < 0.01'],
    'e2el{scenario:chat}': ['p(95) < 5000'],
    'audio_rtf{scenario:voice}': ['max < 1'],
    'checks': ['rate == 1'],
    'words_per_reply': ['min > 0'],
  },
};

function ask(modalities) {
  return omni.chat({
    messages: [{ role: 'user', content: `Say hello from ${exec.scenario.name}.` }],
    modalities,
    max_tokens: 32,
  });
}

export default async function () {
  const res = await ask(['text']);
  group('text', () => {
    check(res, { 'chat ok': (r) => r.ok, 'chat has text': (r) => r.text.length > 0 });
  });
  words.add(res.text.split(/\s+/).filter(Boolean).length);
}

export async function voice() {
  const res = await ask(['text', 'audio']);
  group('voice', () => {
    check(res, { 'voice ok': (r) => r.ok, 'voice has audio': (r) => r.audio.duration > 0 });
  });
}
