// Each VU holds one stream of CHUNKS chunks at the server's 50 a second: the added delay
// of every chunk. One stream per VU, as bench/streaming measures: VUs that all start at
// once and stream alike would otherwise finish and start again in lockstep, and the p99
// would measure those bursts of completions.
import omni from 'omni';

export const options = {
  scenarios: { streams: { executor: 'per-vu-iterations', vus: Number(__ENV.VUS), iterations: 1, maxDuration: '10m' } },
};

export default async function () {
  await omni.chat({ messages: [{ role: 'user', content: 'hi' }], max_tokens: Number(__ENV.CHUNKS) });
}
