// One streamed chat per iteration, closed loop: the added delay of every chunk.
import omni from 'omni';

export const options = { vus: Number(__ENV.VUS), duration: __ENV.DURATION };

export default async function () {
  await omni.chat({ messages: [{ role: 'user', content: 'hi' }], max_tokens: Number(__ENV.CHUNKS) });
}
