// The scenario omnik bench runs: vllm bench serve --omni's requests on omnik's engine.
import omni from 'omni';
import { sleep } from 'omnik';
import exec from 'omnik/execution';
import { dataset } from 'omnik/data';
import bench from 'omnik/bench';

const samples = dataset(bench.dataset);

// Before the benchmark, as vllm bench serve: the initial test request, then the warmups.
// discard keeps them out of every metric.
export async function setup() {
  if (bench.initialTest) await initialTest(samples[0]);
  for (let i = 0; i < bench.warmups; i++) await send(samples[i % samples.length], { discard: true });
}

// The initial test request sends the first sample, retried every 5 s for up to
// readyTimeout seconds; when it still fails, the benchmark stops with the server's reason.
async function initialTest(s) {
  const deadline = Date.now() + bench.readyTimeout * 1000;
  for (;;) {
    const timeout = bench.readyTimeout > 0 ? Math.max(deadline - Date.now(), 1) : undefined;
    const r = await send(s, { discard: true, timeout });
    if (r.ok) return;
    const left = deadline - Date.now();
    if (left <= 0) {
      return exec.test.abort('Initial test run failed - Please make sure benchmark arguments are correctly specified. ' +
        `Error: ${r.error.message}`);
    }
    console.warn(`Endpoint is not ready. Error='${r.error.message}'`);
    sleep(Math.min(5, left / 1000));
  }
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
      // Greedy unless the flags say otherwise (--temperature, --extra-body), as the reference.
      temperature: 0,
      return_stage_metrics: bench.returnStageMetrics,
      ...bench.extraBody,
      // Only chat has an end of sequence to ignore; after the extra body, so it wins.
      ...(bench.ignoreEOS ? { ignore_eos: true } : {}),
    }, params);
  },
  'openai-audio-speech': (s, params) => {
    const body = {
      input: s.prompt, stream: true, stream_format: 'audio', response_format: 'pcm',
      ...(bench.returnStageMetrics ? { return_stage_metrics: true } : {}), ...bench.extraBody,
    };
    // As the reference (vllm-omni #4694): stage metrics ride on SSE events, which raw PCM
    // cannot carry, so asking for them switches the stream, whatever the extra body says.
    if (body.return_stage_metrics) Object.assign(body, { stream: true, stream_format: 'sse' });
    return omni.audio.speech(body, params);
  },
  // Streamed, as the reference sends edits: an AR stage's text chunks give TTFT and ITL.
  'openai-image-edits-omni': (s, params) => omni.images.edit({
    prompt: s.prompt, image: s.imageFiles, stream: true, return_stage_metrics: bench.returnStageMetrics, ...bench.extraBody,
  }, params),
  'openai-images-omni': (s, params) => omni.images.generate({
    prompt: s.prompt, n: 1, ...(bench.returnStageMetrics ? { return_stage_metrics: true } : {}), ...bench.extraBody,
  }, params),
  // An async job polled every poll_interval_s (2 s) for up to poll_timeout_s (6 h), which
  // the reference reads from the extra body and keeps off the form; like the reference,
  // it does not download the clip.
  'openai-videos-omni': (s, params) => {
    const { poll_interval_s: interval = 2, poll_timeout_s: timeout = 6 * 3600, ...body } = bench.extraBody;
    // A param left undefined (the initial test's timeout without a ready check) must not
    // erase the poll timeout.
    const set = Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined));
    return omni.videos.generate({ prompt: s.prompt, return_stage_metrics: bench.returnStageMetrics, ...body },
      { pollInterval: interval * 1000, timeout: timeout * 1000, download: false, ...set });
  },
};

// Every request carries its sample's prompt length: the input tokens of a server that
// reports none (speech, images), as vllm bench serve counts them.
const send = (s, params) => senders[bench.backend](s, { promptTokens: s.promptLen, ...params });
