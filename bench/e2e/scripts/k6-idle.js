// k6's row beside idle.js: one request, then sleep.
import http from 'k6/http';
import { sleep } from 'k6';

export const options = { vus: Number(__ENV.VUS), duration: '10m' };
const body = JSON.stringify({ model: 'bench', messages: [{ role: 'user', content: 'hi' }], stream: false, max_tokens: 1 });

export default function () {
  http.post(`${__ENV.BASE_URL}/v1/chat/completions`, body, { headers: { 'Content-Type': 'application/json' } });
  sleep(600);
}
