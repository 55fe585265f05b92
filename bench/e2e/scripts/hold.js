// Each VU holds one slow stream (one chunk a second) open: memory per streaming VU.
import omni from 'omni';

export const options = { vus: Number(__ENV.VUS), duration: '10m' };

export default async function () {
  await omni.chat({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 600, bench_rate: 1 });
}
