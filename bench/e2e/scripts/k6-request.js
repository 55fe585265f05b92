// k6's row beside request.js: one non-streaming chat POST per iteration.
import http from 'k6/http';

export const options = { vus: Number(__ENV.VUS), duration: __ENV.DURATION, discardResponseBodies: true };
const body = JSON.stringify({ model: 'bench', messages: [{ role: 'user', content: 'hi' }], stream: false, max_tokens: 16 });

export default function () {
  http.post(`${__ENV.BASE_URL}/v1/chat/completions`, body, { headers: { 'Content-Type': 'application/json' } });
}
