// image-edit.js: image edits against an AR → DiT pipeline (HunyuanImage-3.0 style), with
// the input image read once and shared by every VU (open(path, 'b') is never copied per VU).
//
//   omnik run --mock examples/scripts/image-edit.js
//   omnik run --mock -e DURATION=2s examples/scripts/image-edit.js     # a short run
//
// `stream: true` reads the image.edit.chunk events: the AR stage's ar_delta text drives
// TTFT, then the image arrives. The summary's Image Result block shows the images, their
// pixels and the server's generation time; the Stage block splits AR from DiT.
import omni from 'omni';
import { check } from 'omnik';

const input = open('./assets/gradient.png', 'b');
const model = __ENV.IMAGE_MODEL || 'tencent/HunyuanImage-3.0';

export const options = {
  scenarios: {
    edits: { executor: 'constant-vus', vus: 2, duration: __ENV.DURATION || '10s' },
  },
  thresholds: {
    requests_failed: ['rate < 0.01'],
    'e2el{endpoint:images_edit}': ['p(95) < 30000'],
  },
};

export default async function () {
  const res = await omni.images.edit({
    model,
    prompt: 'make it look like a watercolour',
    image: input,
    size: '64x48',
    stream: true,
    return_stage_metrics: true,
  });
  check(res, {
    'edit ok': (r) => r.ok,
    'one image back': (r) => r.images.count === 1,
    'AR text streamed first': (r) => r.timings.ttft > 0 && r.timings.ttft < r.timings.e2el,
  });
}
