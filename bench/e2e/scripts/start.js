// 100 VUs at once, short streams: how long the first requests take to reach the server.
import omni from 'omni';

export const options = { vus: Number(__ENV.VUS), duration: __ENV.DURATION };

export default async function () {
  await omni.chat({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 });
}
