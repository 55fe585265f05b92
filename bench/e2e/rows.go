package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// harness runs the built omnik binary on core 0 against the stamping server on core 1.
type harness struct {
	omnik    string // the binary
	k6       string // k6 on PATH, or ""
	scripts  string // directory of the scenario scripts
	tmp      string // result files
	base     string // the server's URL
	duration time.Duration
	profile  string // directory for omnik's CPU profiles, or ""
	profiles int
}

// omnikEnv is the environment of an omnik run: with -profile, a CPU profile per run.
func (h *harness) omnikEnv(row string) []string {
	if h.profile == "" {
		return nil
	}
	h.profiles++
	return []string{fmt.Sprintf("OMNIK_CPUPROFILE=%s/%s-%d.pprof", h.profile, row, h.profiles)}
}

// counts are the server's running totals.
type counts struct {
	Open, Done, Chunks int64
}

func (h *harness) counts() (counts, error) {
	resp, err := http.Get(h.base + "/bench/counts")
	if err != nil {
		return counts{}, err
	}
	defer resp.Body.Close()
	var c counts
	return c, json.NewDecoder(resp.Body).Decode(&c)
}

// omnikRun runs `omnik run` of a script to its end and returns its CPU time and what
// the server counted meanwhile.
func (h *harness) omnikRun(row, script string, env map[string]string, extra ...string) (time.Duration, counts, error) {
	cpu, n, _, err := h.omnikRecorded(row, script, env, extra...)
	return cpu, n, err
}

// omnikRecorded is omnikRun that also returns the server's stamps of the run.
func (h *harness) omnikRecorded(row, script string, env map[string]string, extra ...string) (time.Duration, counts, map[string]stamps, error) {
	args := []string{"run", "--quiet", "--base-url", h.base}
	for k, v := range env {
		args = append(args, "-e", k+"="+v)
	}
	args = append(append(args, extra...), h.script(script))
	return h.measure(h.omnik, h.omnikEnv(row), args...)
}

// records runs a script with --out json and returns its CPU, the server's counts, the
// records and the server's stamps, to be joined.
func (h *harness) records(row, script string, env map[string]string) (time.Duration, counts, []record, map[string]stamps, error) {
	out := filepath.Join(h.tmp, row+".json")
	defer os.Remove(out)
	cpu, n, byID, err := h.omnikRecorded(row, script, env, "--out", "json="+out)
	if err != nil {
		return cpu, n, nil, nil, err
	}
	recs, err := readRecords(out)
	return cpu, n, recs, byID, err
}

// measure runs a pinned client to its end: its CPU, the server's counts meanwhile and
// the server's stamps of its requests.
func (h *harness) measure(name string, env []string, args ...string) (time.Duration, counts, map[string]stamps, error) {
	before, err := h.counts()
	if err != nil {
		return 0, counts{}, nil, err
	}
	c, err := pinned(0, env, name, args...)
	if err != nil {
		return 0, counts{}, nil, err
	}
	cpu, err := c.wait()
	if err != nil {
		return cpu, counts{}, nil, err
	}
	after, err := h.counts()
	if err != nil {
		return cpu, counts{}, nil, err
	}
	byID, err := fetchStamps(h.base)
	return cpu, counts{Done: after.Done - before.Done, Chunks: after.Chunks - before.Chunks}, byID, err
}

// cpuPerRequest: 50 VUs in a closed loop of non-streaming chats, whole process CPU
// (start, scripts, summary: all in) over the requests the server answered.
func (h *harness) cpuPerRequest() (omnik, k6 float64, err error) {
	env := map[string]string{"VUS": "50", "DURATION": h.dur()}
	cpu, n, err := h.omnikRun("request", "request.js", env)
	if err != nil {
		return 0, 0, err
	}
	omnik = perOp(cpu, n.Done)
	if h.k6 != "" {
		cpu, n, _, err := h.measure(h.k6, []string{"BASE_URL=" + h.base, "VUS=50", "DURATION=" + h.dur()},
			"run", "--quiet", "--no-summary", filepath.Join(h.scripts, "k6-request.js"))
		if err != nil {
			return 0, 0, err
		}
		k6 = perOp(cpu, n.Done)
	}
	return omnik, k6, nil
}

// cpuPerChunk: `omnik bench`, 1000 requests × 50 chunks, 100 in flight.
func (h *harness) cpuPerChunk() (float64, error) {
	cpu, n, _, err := h.measure(h.omnik, h.omnikEnv("bench"), "bench", "--base-url", h.base, "--model", "bench",
		"--num-prompts", "1000", "--max-concurrency", "100", "--random-input-len", "64",
		"--random-output-len", "50", "--server-metrics=off", "--ready-check-timeout-sec", "0", "--quiet")
	if err != nil {
		return 0, err
	}
	if n.Chunks != 50_000 {
		return 0, fmt.Errorf("omnik bench: the server sent %d chunks, want 50000", n.Chunks)
	}
	return perOp(cpu, n.Chunks), nil
}

// delays: `streams` VUs each holding one stream of 50 chunks/s for the duration
// (scripts/stream.js says why one), recorded with --out json and joined to the server's
// stamps. It also returns CPU per chunk.
func (h *harness) delays(streams int) ([]time.Duration, float64, error) {
	env := map[string]string{"VUS": strconv.Itoa(streams), "CHUNKS": strconv.Itoa(int(50 * h.duration.Seconds()))}
	cpu, n, recs, byID, err := h.records(fmt.Sprintf("delay%d", streams), "stream.js", env)
	if err != nil {
		return nil, 0, err
	}
	ds, err := chunkDelays(recs, byID)
	return ds, perOp(cpu, n.Chunks), err
}

// rssPerVU is the slope of the client's RSS between 200 and 1000 VUs, each VU holding
// a stream open (script hold.js) or sleeping after one request (idle.js).
func (h *harness) rssPerVU(name string, script string, env []string, args func(vus int) []string) (float64, error) {
	var rss [2]int64
	for i, vus := range []int{200, 1000} {
		before, err := h.counts()
		if err != nil {
			return 0, err
		}
		// GOGC=100 turns omnik's heap floor off (and is k6's default): a constant 64 MB
		// floor under the 200-VU point would bend the slope, which is to count VUs only.
		c, err := pinned(0, append(env, "VUS="+strconv.Itoa(vus), "GOGC=100"), name, args(vus)...)
		if err != nil {
			return 0, err
		}
		rss[i], err = h.settledRSS(c, before, vus, script == "hold.js")
		_ = c.cmd.Process.Kill()
		_, _ = c.wait()
		_, _ = fetchStamps(h.base)
		if err != nil {
			return 0, err
		}
		if err := h.waitClosed(); err != nil {
			return 0, err
		}
	}
	return float64(rss[1]-rss[0]) / 800, nil
}

// settledRSS waits until every VU has its stream open (or its request done), then a
// second more, and reads the RSS.
func (h *harness) settledRSS(c *child, before counts, vus int, streaming bool) (int64, error) {
	deadline := time.Now().Add(60 * time.Second)
	for {
		now, err := h.counts()
		if err != nil {
			return 0, err
		}
		n := now.Done - before.Done
		if streaming {
			n = now.Open
		}
		if n >= int64(vus) {
			break
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("%d VUs: only %d of them reached the server in 60 s\n%s", vus, n, tail(c.stderr.String()))
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(time.Second)
	return c.rss()
}

// waitClosed waits until the server has no stream open (a killed client's are reset).
func (h *harness) waitClosed() error {
	for range 100 {
		c, err := h.counts()
		if err != nil || c.Open == 0 {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("the server still has streams open 10 s after the client ended")
}

// vuStart: 100 VUs at once, short streams; server receive − client start of each
// request, the VUs' first requests apart from the later ones.
func (h *harness) vuStart() (first, later transit, err error) {
	_, _, recs, byID, err := h.records("start", "start.js", map[string]string{"VUS": "100", "DURATION": "3s"})
	if err != nil {
		return first, later, err
	}
	return transits(recs, byID)
}

func (h *harness) dur() string { return h.duration.String() }

func (h *harness) script(name string) string { return filepath.Join(h.scripts, name) }

// perOp is µs of CPU per operation.
func perOp(cpu time.Duration, n int64) float64 {
	if n <= 0 {
		return 0
	}
	return float64(cpu) / float64(time.Microsecond) / float64(n)
}
