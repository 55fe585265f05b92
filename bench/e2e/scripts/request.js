// One non-streaming chat request per iteration, closed loop: CPU per request.
import omni from 'omni';

export const options = { vus: Number(__ENV.VUS), duration: __ENV.DURATION };

export default async function () {
  await omni.chat({ messages: [{ role: 'user', content: 'hi' }], stream: false, max_tokens: 16 });
}
