// video.js: text-to-video jobs on /v1/videos (Wan2.2 style): each call creates a job,
// polls it every pollInterval ms until it completes or fails, and downloads the clip.
//
//   omnik run --mock examples/scripts/video.js
//   omnik run --mock -e DURATION=2s examples/scripts/video.js     # a short run
//
// The summary's Video Result block shows the video seconds and frames generated, the
// VIDEO_RTF (the server's generation time over the clip's duration, else E2EL) and the
// server's VIDEO_GENERATION time; the Stage block shows the diffusion stage's. E2EL ends
// at the poll that saw the job completed: video_poll_window says by how much it may
// overshoot the true completion (at most a poll interval and two poll round trips).
import omni from 'omni';
import { check } from 'omnik';

const model = __ENV.VIDEO_MODEL || 'Wan-AI/Wan2.2-T2V-A14B-Diffusers';

export const options = {
  scenarios: {
    t2v: { executor: 'constant-vus', vus: 2, duration: __ENV.DURATION || '10s' },
  },
  thresholds: {
    requests_failed: ['rate < 0.01'],
    'video_rtf{endpoint:videos}': ['p(95) < 10'],
    // A poll window that reaches the interval plus round trips means slow status polls.
    'video_poll_window{endpoint:videos}': ['max < 1000'],
  },
};

export default async function () {
  const res = await omni.videos.generate(
    { model, prompt: 'a paper boat drifting down a rainy street', size: '320x192', num_frames: 33, fps: 16 },
    { pollInterval: 50, timeout: 60000 },
  );
  check(res, {
    'job completed': (r) => r.ok && r.video.status === 'completed',
    'clip downloaded': (r) => r.video.bytes > 0,
    'duration reported': (r) => r.video.duration > 0 && r.video.frames === 33,
  });
}
