// ramp-to-knee.ts: TypeScript. Ramps the arrival rate until the simulator's knee shows:
// past its concurrency knee each token takes longer, TPOT climbs, and the threshold on it
// fails (exit 99) — which is the point: it tells you the highest rate that still met it.
//
//   omnik run --mock --mock-knee 4 examples/scripts/ramp-to-knee.ts
//   omnik run --mock -e DURATION=2s examples/scripts/ramp-to-knee.ts   # a short run
import omni from 'omni';

interface ChatResult { ok: boolean; timings: { tpot?: number } }

const stage: string = __ENV.DURATION || '10s';

export const options = {
  scenarios: {
    ramp: {
      executor: 'ramping-arrival-rate',
      startRate: 1, timeUnit: '1s', preAllocatedVUs: 8, maxVUs: 64,
      stages: [
        { duration: stage, target: 4 },
        { duration: stage, target: 16 },
        { duration: stage, target: 32 },
      ],
    },
  },
  thresholds: { 'tpot{modality:text}': ['p(95) < 8'] },
};

export default async function (): Promise<void> {
  const r: ChatResult = await omni.chat({
    messages: [{ role: 'user', content: 'Count to twenty.' }],
    modalities: ['text'],
    max_tokens: 32,
  });
  if (!r.ok) console.warn('request failed');
}
