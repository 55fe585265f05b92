// chat-audio.js: a voice assistant turn — audio in, text and audio out — and what the
// listener experiences: time to the first audio packet, real-time factor, and the
// stage that dominates (thinker, talker or code2wav).
//
//   omnik run --mock examples/scripts/chat-audio.js
//   omnik run --mock -e DURATION=2s examples/scripts/chat-audio.js     # a short run
//
// The question is a WAV file sent as input_audio; omnik base64-encodes it in Go once per
// request from the shared bytes. onEvent shows how a script can react to chunks as they
// arrive; its timestamps come from Go, so a slow callback never skews a metric.
import omni from 'omni';
import { check } from 'omnik';
import { Counter } from 'omnik/metrics';
import { dataset } from 'omnik/data';

// A synthetic spoken question: one random-mm sample with a 1 s WAV tone.
const question = dataset({
  name: 'random-mm', numPrompts: 1, randomInputLen: 16, randomOutputLen: 64, seed: 7,
  mm: { baseItems: 1, buckets: [{ height: 0, width: 1, frames: 1, prob: 1 }] },
})[0];
const audioChunks = new Counter('audio_chunks_seen');

export const options = {
  vus: 2,
  duration: __ENV.DURATION || '10s',
  thresholds: {
    'audio_ttfp{modality:audio}': ['p(95) < 3000'],
    'audio_rtf{modality:audio}': ['p(95) < 1'],
    'stage_gen_time{stage:talker}': ['avg < 5000'],
    requests_failed: ['rate < 0.01'],
  },
};

export default async function () {
  let chunks = 0;
  const res = await omni.chat({
    messages: [{
      role: 'user',
      content: [
        { type: 'text', text: 'Answer the question in the recording.' },
        ...question.audio.map((data) => ({ type: 'input_audio', input_audio: { data, format: 'wav' } })),
      ],
    }],
    modalities: ['text', 'audio'],
    max_tokens: 64,
  }, { onEvent: () => { chunks++; } });
  audioChunks.add(chunks);
  check(res, {
    'answered in text': (r) => r.text.length > 0,
    'answered in audio': (r) => r.audio.duration > 0,
    'faster than real time': (r) => r.timings.audioRtf < 1,
  });
}
