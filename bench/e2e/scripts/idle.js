// Each VU sends one request, then sleeps: memory per idle VU with its connection.
import omni from 'omni';
import { sleep } from 'omnik';

export const options = { vus: Number(__ENV.VUS), duration: '10m' };

export default async function () {
  await omni.chat({ messages: [{ role: 'user', content: 'hi' }], stream: false, max_tokens: 1 });
  sleep(600);
}
