// ramp-to-knee.ts: TypeScript. Ramps the arrival rate until the simulator's knee shows:
// past its concurrency knee each token takes longer, TPOT climbs, and the threshold on it
// fails (exit 99) — which is the point: it tells you the highest rate that still met it.
//
//   omnik run --mock examples/scripts/ramp-to-knee.ts                  # crosses the knee: exit 99
//   omnik run --mock -e DURATION=2s examples/scripts/ramp-to-knee.ts   # a short run
//
// Below the knee the simulator's TPOT is 5 ms, close to the 6 ms threshold; the test
// suite runs the short mode on a simulator twice as fast, which leaves room for a loaded
// machine's delays:
// e2e: --mock-speed=2
import omni from 'omni';

interface ChatResult { ok: boolean; timings: { tpot?: number } }

const stage: string = __ENV.DURATION || '10s';
// A short run (DURATION set, as the test suite does) stays below the knee and passes;
// the full run climbs past it. PEAK_RATE overrides the top of the ramp.
const peak: number = Number(__ENV.PEAK_RATE || (__ENV.DURATION ? 8 : 32));

export const options = {
  scenarios: {
    ramp: {
      executor: 'ramping-arrival-rate',
      startRate: 1, timeUnit: '1s', preAllocatedVUs: 8, maxVUs: 64,
      stages: [
        { duration: stage, target: peak / 8 },
        { duration: stage, target: peak / 2 },
        { duration: stage, target: peak },
      ],
    },
  },
  thresholds: { 'tpot{modality:text}': ['p(95) < 6'] },
};

export default async function (): Promise<void> {
  const r: ChatResult = await omni.chat({
    messages: [{ role: 'user', content: 'Count to twenty.' }],
    modalities: ['text'],
    max_tokens: 128,
  });
  if (!r.ok) console.warn('request failed');
}
