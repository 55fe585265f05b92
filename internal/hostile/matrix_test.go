//go:build linux

package hostile

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var omnikFlag = flag.String("omnik", "", "run this omnik binary instead of building one (an older build, for before/after figures)")

// TestMatrix runs omnik against every fault on every endpoint it applies to.
func TestMatrix(t *testing.T) {
	bin := omnikBinary(t)
	slots := make(chan struct{}, parallel)
	for _, c := range cells() {
		t.Run(c.fault.Name+"/"+string(c.ep), func(t *testing.T) {
			t.Parallel()
			slots <- struct{}{}
			defer func() { <-slots }()
			runCell(t, bin, c)
		})
	}
}

// run is what one omnik process did.
type run struct {
	dir            string
	stdout, stderr string
	err            error
	wall           time.Duration
	spent          spent
}

func runCell(t *testing.T, bin string, c cell) {
	srv := Start(c.fault)
	defer srv.Close()
	r := runOmnik(t, bin, srv.URL, c)
	if r.err != nil {
		t.Fatalf("omnik: %v\n--- stderr ---\n%s\n--- stdout ---\n%s", r.err, r.stderr, r.stdout)
	}
	t.Logf("wall %v, CPU %v, peak RSS %.1f MiB (spawner %.1f MiB)", r.wall.Round(time.Millisecond),
		r.spent.cpu.Round(time.Millisecond), inMiB(r.spent.rss), inMiB(r.spent.floor))
	for _, bad := range []string{"panic", "fatal error", "goroutine "} {
		if strings.Contains(r.stderr, bad) {
			t.Errorf("stderr says %q:\n%s", bad, r.stderr)
		}
	}
	if !strings.Contains(r.stdout, "Serving Benchmark Result") {
		t.Errorf("stdout has no Serving Benchmark Result block:\n%s", r.stdout)
	}
	if bound := rssBound(c.ep); r.spent.rss > bound {
		t.Errorf("peak RSS %.1f MiB, above the bound of %d MiB", inMiB(r.spent.rss), bound>>20)
	}
	checkRecords(t, filepath.Join(r.dir, "records.ndjson"), c)
	checkSummary(t, filepath.Join(r.dir, "summary.json"), c.want.kind)
	checkHTML(t, filepath.Join(r.dir, "report.html"))
}

// runOmnik runs the cell's scenario, killing omnik once it overstays the bound.
func runOmnik(t *testing.T, bin, url string, c cell) run {
	r := run{dir: t.TempDir()}
	if err := os.WriteFile(filepath.Join(r.dir, "script.js"), []byte(script(c)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.dir, "photo.png"), pngImage, 0o644); err != nil {
		t.Fatal(err)
	}
	bound := maxDuration + gracefulStop + margin
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run", "-q", "--no-color", "--base-url", url,
		"--out", "json=records.ndjson", "--summary-export", "summary.json", "--out", "html=report.html", "script.js")
	cmd.Dir, cmd.Env = r.dir, cleanEnv()
	measured := spawned(cmd, r.dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	r.err = cmd.Run()
	r.wall = time.Since(start)
	r.stdout, r.stderr = stdout.String(), stderr.String()
	if ctx.Err() != nil {
		r.err = fmt.Errorf("still running after %v (maxDuration %v + gracefulStop %v + margin %v): killed", bound, maxDuration, gracefulStop, margin)
		return r
	}
	r.spent, r.err = measured()
	return r
}

// calls is the omni call each endpoint's scenario makes; %s takes the fault's asks.
var calls = map[Endpoint]string{
	ChatStream:  `omni.chat({ messages: [{ role: 'user', content: 'Hi' }], max_tokens: 16, %s })`,
	ChatJSON:    `omni.chat({ messages: [{ role: 'user', content: 'Hi' }], max_tokens: 16, stream: false, %s })`,
	Images:      `omni.images.generate({ prompt: 'a lighthouse', size: '64x48', %s })`,
	ImagesEdit:  `omni.images.edit({ prompt: 'at night', image: photo, stream: true, %s })`,
	SpeechRaw:   `omni.audio.speech({ input: 'Hello there.', voice: 'vivian', %s })`,
	SpeechSSE:   `omni.audio.speech({ input: 'Hello there.', voice: 'vivian', stream_format: 'sse', %s })`,
	AudioStream: `omni.audio.stream({ voice: 'vivian', response_format: 'pcm', stream_audio: true, input: 'Hello there.', %s })`,
}

func script(c cell) string {
	return fmt.Sprintf(`import omni from 'omni';
import { check } from 'omnik';

export const options = {
  scenarios: { cell: { executor: 'shared-iterations', vus: 1, iterations: %d, maxDuration: '%v', gracefulStop: '%v' } },
  omni: { model: %q, stallTimeout: '%v', timeout: '%v' },
};

const photo = open('photo.png', 'b');

export default async function () {
  const res = await %s;
  check(res, { 'a result or a reason': (r) => r.ok || r.error.kind !== '' });
}
`, iterations, maxDuration, gracefulStop, Model, stallTimeout, requestTimeout, fmt.Sprintf(calls[c.ep], c.fault.Ask[c.ep]))
}
