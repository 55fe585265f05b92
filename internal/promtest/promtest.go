// Package promtest starts a real Prometheus for a Go test: Debian's prometheus binary,
// a fresh TSDB in a temporary directory, the remote-write receiver on a free loopback
// port, and optionally native histograms. Tests push to it and read back through its
// HTTP query API, so what they check is what a user's Prometheus would store.
//
// It is test support: a normal package so that the tests of other packages can import
// it. A test without prometheus on the machine skips, unless OMNIK_REQUIRE_PROMETHEUS=1
// says it is mandatory (as in CI).
package promtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// EnvRequire, set to 1, turns a missing prometheus into a test failure.
const EnvRequire = "OMNIK_REQUIRE_PROMETHEUS"

// Install is the command that brings the binary.
const Install = "apt-get install prometheus"

// readyTimeout bounds the wait for /-/ready: generous, since a loaded 2-core machine can
// take many seconds to open a TSDB; no test here measures speed.
const readyTimeout = 90 * time.Second

// Server is one running Prometheus.
type Server struct {
	// URL is its base: http://127.0.0.1:PORT.
	URL    string
	dir    string
	cmd    *exec.Cmd
	exited chan struct{}
	err    error // of the process, once exited is closed
}

type config struct{ native bool }

// Option changes how Start starts Prometheus.
type Option func(*config)

// NativeHistograms starts it with --enable-feature=native-histograms; without it,
// Prometheus 2.x refuses native histograms.
func NativeHistograms() Option { return func(c *config) { c.native = true } }

// Find returns the path of prometheus on PATH, else /usr/bin/prometheus.
func Find() (string, error) {
	for _, name := range []string{"prometheus", "/usr/bin/prometheus"} {
		if path, err := exec.LookPath(name); err == nil {
			return path, nil
		}
	}
	return "", errors.New("no prometheus on PATH")
}

// Start starts Prometheus with a temporary config and TSDB and waits until it is ready;
// it stops at t.Cleanup. Without the binary the test skips, or fails when EnvRequire
// is 1.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	exe, err := Find()
	if err != nil {
		if os.Getenv(EnvRequire) == "1" {
			t.Fatalf("promtest: %v, and %s=1 makes Prometheus tests mandatory (install: %s)", err, EnvRequire, Install)
		}
		t.Skipf("skipped: no prometheus (install: %s)", Install)
	}
	var c config
	for _, o := range opts {
		o(&c)
	}
	// Another process can take the port between the probe and Prometheus's listen.
	for try := 1; ; try++ {
		s, err := start(t, exe, c)
		if err == nil {
			return s
		}
		if !errors.Is(err, errPortTaken) || try == 5 {
			t.Fatalf("promtest: %v", err)
		}
	}
}

var errPortTaken = errors.New("the port was taken")

func start(t testing.TB, exe string, c config) (*Server, error) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	// No scrape jobs: the only samples are those the test pushes.
	if err := os.WriteFile(cfg, []byte("global:\n  scrape_interval: 1h\n"), 0o644); err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	args := []string{"--config.file=" + cfg, "--storage.tsdb.path=" + filepath.Join(dir, "data"),
		"--web.listen-address=" + addr, "--web.enable-remote-write-receiver"}
	if c.native {
		args = append(args, "--enable-feature=native-histograms")
	}
	logf, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.Command(exe, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	procAttr(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + addr, dir: dir, cmd: cmd, exited: make(chan struct{})}
	go func() { s.err = cmd.Wait(); close(s.exited) }()
	if err := s.waitReady(); err != nil {
		s.stop()
		log := s.Log()
		if strings.Contains(log, "address already in use") {
			return nil, errPortTaken
		}
		return nil, fmt.Errorf("%v; its log:\n%s", err, log)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("prometheus log (%s):\n%s", s.URL, tail(s.Log(), 4000))
		}
		s.stop()
	})
	return s, nil
}

// freePort is a port nobody listened on a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (s *Server) waitReady() error {
	deadline := time.Now().Add(readyTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			return fmt.Errorf("prometheus exited before it was ready: %v", s.err)
		default:
		}
		resp, err := http.Get(s.URL + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("prometheus was not ready within %v", readyTimeout)
}

// stop asks Prometheus to shut down (it flushes its TSDB) and kills it if it lingers.
func (s *Server) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

// WriteURL is the remote-write receiver's URL.
func (s *Server) WriteURL() string { return s.URL + "/api/v1/write" }

// Log is what Prometheus printed so far.
func (s *Server) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "prometheus.log"))
	return string(b)
}

// Sample is one element of an instant vector.
type Sample struct {
	Metric map[string]string
	Value  float64
}

// Query evaluates expr at time at through /api/v1/query and returns its vector (a
// scalar result is a vector of one without labels). at must be at or after the
// newest sample it should see, and within Prometheus's 5-minute lookback of it.
func (s *Server) Query(t testing.TB, expr string, at time.Time) []Sample {
	t.Helper()
	q := url.Values{"query": {expr}, "time": {strconv.FormatFloat(float64(at.UnixMilli())/1000, 'f', 3, 64)}}
	resp, err := http.Get(s.URL + "/api/v1/query?" + q.Encode())
	if err != nil {
		t.Fatalf("query %s: %v", expr, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string          `json:"resultType"`
			Result     json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &r); err != nil || r.Status != "success" {
		t.Fatalf("query %s: %s %s (%v)", expr, resp.Status, body, err)
	}
	var out []Sample
	switch r.Data.ResultType {
	case "vector":
		var vs []struct {
			Metric map[string]string `json:"metric"`
			Value  [2]any            `json:"value"`
		}
		if err := json.Unmarshal(r.Data.Result, &vs); err != nil {
			t.Fatalf("query %s: %v in %s", expr, err, body)
		}
		for _, v := range vs {
			out = append(out, Sample{v.Metric, parseValue(t, v.Value[1])})
		}
	case "scalar":
		var v [2]any
		if err := json.Unmarshal(r.Data.Result, &v); err != nil {
			t.Fatalf("query %s: %v in %s", expr, err, body)
		}
		out = append(out, Sample{nil, parseValue(t, v[1])})
	default:
		t.Fatalf("query %s: a %s, want a vector: %s", expr, r.Data.ResultType, body)
	}
	return out
}

// Value is the single value of expr at time at; it fails the test on any other
// number of results.
func (s *Server) Value(t testing.TB, expr string, at time.Time) float64 {
	t.Helper()
	v := s.Query(t, expr, at)
	if len(v) != 1 {
		t.Fatalf("query %s: %d results, want 1: %v", expr, len(v), v)
	}
	return v[0].Value
}

func parseValue(t testing.TB, v any) float64 {
	t.Helper()
	str, _ := v.(string)
	f, err := strconv.ParseFloat(str, 64)
	if err != nil {
		t.Fatalf("value %v: %v", v, err)
	}
	return f
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
