package main

import (
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/omnik-dev/omnik/mock"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// notFound answers every request as a server without the endpoint does.
func notFound(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	_, _ = w.Write([]byte(`{"error":{"message":"route /v1/chat/completions is not served here","type":"NotFoundError","code":404}}`))
}

// failingFirst passes requests to the simulator after the first n POSTs, which get 503.
func failingFirst(t *testing.T, n int32) http.Handler {
	t.Helper()
	sim, err := mock.New(mock.WithSpeed(20))
	if err != nil {
		t.Fatal(err)
	}
	var posts atomic.Int32
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path != "/tokenize" && posts.Add(1) <= n {
			http.Error(w, "warming up", http.StatusServiceUnavailable)
			return
		}
		sim.Handler().ServeHTTP(w, r)
	})
}

const initialTestFailed = "Initial test run failed - Please make sure benchmark arguments are correctly specified. Error: "

// Before the benchmark, one test request: when it fails, nothing else is sent, the
// server's reason is on the terminal and the exit is 108 (the run aborted).
func TestBenchStopsWhenTheInitialTestFails(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		srv   func(t *testing.T) *benchServer
		args  []string
		want  string
		posts int
	}{
		{"a server answering 404", func(t *testing.T) *benchServer { return serveRecorded(t, http.HandlerFunc(notFound)) },
			nil, initialTestFailed + "HTTP 404 Not Found: route /v1/chat/completions is not served here", 1},
		{"a model without the endpoint", func(t *testing.T) *benchServer { return startBenchServer(t) },
			[]string{"--endpoint", "/v1/images/edits", "--dataset-name", "random-mm", "--model", "Qwen/Qwen3-Omni-30B-A3B-Instruct"},
			initialTestFailed + "HTTP 503 Service Unavailable: Image generation is not available", 1},
		{"ready check timing out", func(t *testing.T) *benchServer { return serveRecorded(t, failingFirst(t, 1000)) },
			// The last try may time out rather than get the 503, on a busy machine.
			[]string{"--ready-check-timeout-sec", "1"}, initialTestFailed, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := tc.srv(t)
			args := append(benchArgs(srv, "--num-prompts", "4", "--model", "Qwen/Qwen3-Omni-30B-A3B-Instruct"), tc.args...)
			r := runOmnik(t, t.TempDir(), nil, args...)
			expect{code: 108, stderr: []string{tc.want}, notStdout: []string{"Successful requests"}}.check(t, r)
			// One try without --ready-check-timeout-sec; retries within it, never the benchmark.
			if n := len(srv.posts()); n < tc.posts || n > 3 {
				t.Errorf("%d requests sent, want %d test requests and no benchmark", n, tc.posts)
			}
		})
	}
}

// --ready-check-timeout-sec retries the test request until the server answers; 0 skips it.
func TestBenchReadyCheck(t *testing.T) {
	t.Parallel()
	t.Run("retries until the server is up", func(t *testing.T) {
		t.Parallel()
		srv := serveRecorded(t, failingFirst(t, 1))
		r := runOmnik(t, t.TempDir(), nil, benchArgs(srv, "--num-prompts", "2", "--ready-check-timeout-sec", "60")...)
		expect{code: 0, stdout: []string{"Successful requests:                     2 "},
			stderr: []string{"Endpoint is not ready. Error='HTTP 503 Service Unavailable: warming up"}}.check(t, r)
		if n := len(srv.posts()); n != 4 {
			t.Errorf("%d requests, want a failed and a passed test request, then 2", n)
		}
	})
	t.Run("0 skips it", func(t *testing.T) {
		t.Parallel()
		srv := startBenchServer(t)
		r := runOmnik(t, t.TempDir(), nil, benchArgs(srv, "--num-prompts", "2", "--ready-check-timeout-sec", "0")...)
		expect{code: 0, stdout: []string{"Successful requests:                     2 "}}.check(t, r)
		if n := len(srv.posts()); n != 2 {
			t.Errorf("%d requests, want the 2 of the benchmark only", n)
		}
	})
}

// A benchmark that completed no request measured nothing: exit 110, with the first
// failure's reason on the terminal, whether the test request passed or was skipped.
func TestBenchThatCompletesNoRequestFails(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		srv  func(t *testing.T) *benchServer
		args []string
		want string
	}{
		{"test request skipped", func(t *testing.T) *benchServer {
			return startBenchServer(t, mock.WithFaults(mock.Fault{Kind: mock.FaultHTTP500, Probability: 1}))
		}, []string{"--ready-check-timeout-sec", "0"}, "no request completed: all 3 failed; the first: HTTP 500"},
		{"server failing after the test request", func(t *testing.T) *benchServer {
			sim, err := mock.New(mock.WithSpeed(20))
			if err != nil {
				t.Fatal(err)
			}
			var posts atomic.Int32
			return serveRecorded(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost && r.URL.Path != "/tokenize" && posts.Add(1) > 1 {
					notFound(w, r)
					return
				}
				sim.Handler().ServeHTTP(w, r)
			}))
		}, nil, "no request completed: all 3 failed; the first: HTTP 404 Not Found: route /v1/chat/completions is not served here"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := tc.srv(t)
			r := runOmnik(t, t.TempDir(), nil, append(benchArgs(srv, "--num-prompts", "3"), tc.args...)...)
			expect{code: 110, stdout: []string{"Successful requests:                     0 ", "Failed requests:                         3 "},
				stderr: []string{tc.want}}.check(t, r)
		})
	}
	t.Run("a threshold's verdict stays", func(t *testing.T) {
		t.Parallel()
		srv := startBenchServer(t, mock.WithFaults(mock.Fault{Kind: mock.FaultHTTP500, Probability: 1}))
		r := runOmnik(t, t.TempDir(), nil, benchArgs(srv, "--num-prompts", "2", "--ready-check-timeout-sec", "0",
			"--threshold", "requests_failed.rate < 0.5")...)
		expect{code: 99, stderr: []string{"no request completed"}}.check(t, r)
	})
}

// Image edits are streamed, as the reference sends them, so an AR+DiT server's text
// chunks give the Text Result; --extra-body still turns it off.
func TestBenchStreamsImageEdits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		extra  []string
		stream string
		text   bool
	}{
		{"default", nil, "true", true},
		{"extra body off", []string{"--extra-body", `{"stream": false}`}, "false", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := startBenchServer(t)
			args := append(benchArgs(srv, "--endpoint", "/v1/images/edits", "--dataset-name", "random-mm", "--num-prompts", "2",
				"--model", "ByteDance-Seed/BAGEL-7B-MoT"), tc.extra...)
			r := runOmnik(t, t.TempDir(), nil, args...)
			expect{code: 0, stdout: []string{"Successful requests:                     2 ", "Total images generated:                  2 "}}.check(t, r)
			for _, p := range srv.posts() {
				if field := "name=\"stream\"\r\n\r\n" + tc.stream + "\r\n"; !strings.Contains(string(p.body), field) {
					t.Errorf("the edit's form lacks stream=%s", tc.stream)
				}
			}
			if got := strings.Contains(r.stdout, "Mean TTFT (ms):"); got != tc.text {
				t.Errorf("TTFT rows printed: %v, want %v\n%s", got, tc.text, r.stdout)
			}
		})
	}
}

// A server that reports no prompt tokens (speech) counts the dataset's prompt lengths,
// as the reference does, and the records say where each count came from.
func TestBenchInputTokensFallBackToTheDataset(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		endpoint, model, source string
	}{
		{"/v1/audio/speech", "Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice", record.PromptFromDataset},
		{"/v1/chat/completions", "Qwen/Qwen3-Omni-30B-A3B-Instruct", record.PromptFromServer},
	} {
		t.Run(tc.endpoint, func(t *testing.T) {
			t.Parallel()
			srv := startBenchServer(t)
			dir := t.TempDir()
			r := runOmnik(t, dir, nil, benchArgs(srv, "--endpoint", tc.endpoint, "--model", tc.model, "--num-prompts", "3",
				"--random-input-len", "40", "--out", "json=out.json")...)
			expect{code: 0}.check(t, r)
			var sum int
			for _, rec := range readRecords(t, dir+"/out.json") {
				if rec.Usage.PromptSource != tc.source || rec.Usage.Prompt == 0 {
					t.Errorf("prompt tokens %d from %q, want a count from %q", rec.Usage.Prompt, rec.Usage.PromptSource, tc.source)
				}
				sum += rec.Usage.Prompt
			}
			if got := summaryValue(t, r.stdout, "Total input tokens:"); got != strconv.Itoa(sum) || sum == 0 {
				t.Errorf("Total input tokens: %s, want the records' %d", got, sum)
			}
		})
	}
}

// The verdict counts the benchmark's records: a request the run cut off is neither
// completed nor failed, and the first failure's reason is kept.
func TestOutcomesCountRecordsButInterruptions(t *testing.T) {
	t.Parallel()
	var o outcomes
	for _, err := range []*record.Error{{Kind: record.KindInterrupted, Message: "cut"}, {Kind: record.KindHTTPStatus, Message: "HTTP 404"},
		{Kind: record.KindReset, Message: "reset"}} {
		o.Add(&record.Record{Err: err})
	}
	if o.completed != 0 || o.failed != 2 || o.firstError != "HTTP 404" {
		t.Errorf("completed %d, failed %d, first %q; want 0, 2, HTTP 404", o.completed, o.failed, o.firstError)
	}
	o.Add(&record.Record{})
	if o.completed != 1 {
		t.Errorf("completed %d after an ok record", o.completed)
	}
}

// Without a ready check the initial test's timeout is undefined, which must not erase a
// video job's poll_timeout_s: the job that never completes fails the test at the poll
// timeout. The server cancels the job at poll 200, which polls 1 ms apart cannot reach
// within a 50 ms poll timeout; the client's timeout (10 min) would let them.
func TestBenchVideoInitialTestKeepsThePollTimeout(t *testing.T) {
	t.Parallel()
	sim, err := mock.New(mock.WithSpeed(20))
	if err != nil {
		t.Fatal(err)
	}
	var polls atomic.Int32
	srv := serveRecorded(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/v1/videos":
			_, _ = w.Write([]byte(`{"id":"video_gen_1","status":"queued"}`))
		case r.Method == http.MethodGet && r.URL.Path == "/v1/videos/video_gen_1":
			status := "in_progress"
			if polls.Add(1) >= 200 {
				status = "cancelled"
			}
			_, _ = w.Write([]byte(`{"id":"video_gen_1","status":"` + status + `"}`))
		default:
			sim.Handler().ServeHTTP(w, r)
		}
	}))
	args := append(benchArgs(srv, "--num-prompts", "2", "--endpoint", "/v1/videos", "--model", "Wan-AI/Wan2.2-T2V-A14B-Diffusers"),
		"--extra-body", `{"poll_interval_s":0.001,"poll_timeout_s":0.05}`)
	r := runOmnik(t, t.TempDir(), nil, args...)
	expect{code: 108, stderr: []string{initialTestFailed + "video job video_gen_1 not completed within the timeout"}, notStdout: []string{"Successful requests"}}.check(t, r)
}
