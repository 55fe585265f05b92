import { check, group, sleep } from 'omnik';
import { Trend } from 'omnik/metrics';
import exec from 'omnik/execution';
import { helper } from './lib/helper.js';

const t = new Trend('my_trend', true);
export const options = { vus: 2, iterations: 4, thresholds: { my_trend: ['p(95)<100'] } };

export function setup() { return { a: 1, list: [1, 2] }; }

export default async function (data) {
  const v = await new Promise((r) => setTimeout(() => r(helper(data.a)), 5));
  t.add(v, { kind: 'x' });
  check(v, { 'is 2': (x) => x === 2, 'is 3': (x) => x === 3 });
  group('g', () => { sleep(0.001); });
  globalThis.seen = `${exec.scenario.name}:${__ITER}:${__VU}:${data.list.length}`;
}

export function teardown(data) { globalThis.tornDown = data.a; }
