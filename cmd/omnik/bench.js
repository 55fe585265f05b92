// The scenario omnik bench runs: vllm bench serve --omni's requests on omnik's engine.
import omni from 'omni';
import exec from 'omnik/execution';
import { dataset } from 'omnik/data';
import bench from 'omnik/bench';

const samples = dataset(bench.dataset);

// Warmup requests run before the benchmark; discard keeps them out of every metric.
export async function setup() {
  for (let i = 0; i < bench.warmups; i++) await send(samples[i % samples.length], { discard: true });
}

// Iteration i of the scenario sends dataset sample i.
export default async function () {
  await send(samples[exec.scenario.iterationInTest % samples.length], {});
}

// One request per backend, as vllm bench serve --omni builds it.
const senders = {
  'openai-chat-omni': (s, params) => {
    const content = [{ type: 'text', text: s.prompt }];
    for (const url of s.images) content.push({ type: 'image_url', image_url: { url } });
    for (const data of s.audio) content.push({ type: 'input_audio', input_audio: { data, format: 'wav' } });
    return omni.chat({
      messages: [{ role: 'user', content: content.length === 1 ? s.prompt : content }],
      max_tokens: s.outputTokens,
      return_stage_metrics: bench.returnStageMetrics,
      ...bench.extraBody,
      // Only chat has an end of sequence to ignore; after the extra body, so it wins.
      ...(bench.ignoreEOS ? { ignore_eos: true } : {}),
    }, params);
  },
  'openai-audio-speech': (s, params) => omni.audio.speech({
    input: s.prompt, stream: true, stream_format: 'audio', response_format: 'pcm', ...bench.extraBody,
  }, params),
  'openai-image-edits-omni': (s, params) => omni.images.edit({
    prompt: s.prompt, image: s.imageFiles, return_stage_metrics: bench.returnStageMetrics, ...bench.extraBody,
  }, params),
  'openai-images-omni': (s, params) => omni.images.generate({ prompt: s.prompt, n: 1, ...bench.extraBody }, params),
};
const send = senders[bench.backend];
