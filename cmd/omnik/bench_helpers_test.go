package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/mock"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// benchTestdata is cmd/omnik/testdata/bench, absolute.
func benchTestdata(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "bench", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// seenRequest is one request the simulator behind a benchServer received.
type seenRequest struct {
	method, path, contentType string
	header                    http.Header
	body                      []byte
}

// json decodes a JSON body (nil for multipart and other bodies).
func (r seenRequest) json() map[string]any {
	var m map[string]any
	if json.Unmarshal(r.body, &m) != nil {
		return nil
	}
	return m
}

// benchServer is the simulator behind a recording proxy, so a test sees every request
// omnik sends (warmups included) and can assert none was sent.
type benchServer struct {
	URL       string
	host      string
	port      string
	mu        sync.Mutex
	seen      []seenRequest
	tokenizes atomic.Int32 // POST /tokenize calls (calibration)
}

// startBenchServer serves the simulator, 20 times faster than real time unless opts say
// otherwise, behind a recorder.
func startBenchServer(t *testing.T, opts ...mock.Option) *benchServer {
	t.Helper()
	sim, err := mock.New(append([]mock.Option{mock.WithSpeed(20)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return serveRecorded(t, sim.Handler())
}

// serveRecorded serves h behind a recorder.
func serveRecorded(t *testing.T, h http.Handler) *benchServer {
	t.Helper()
	s := &benchServer{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		// /tokenize is calibration, not load: the tests count benchmark requests.
		if r.URL.Path == "/tokenize" {
			s.tokenizes.Add(1)
		} else if r.Method == http.MethodPost {
			s.mu.Lock()
			s.seen = append(s.seen, seenRequest{r.Method, r.URL.Path, r.Header.Get("Content-Type"), r.Header.Clone(), body})
			s.mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	s.URL = ts.URL
	u := strings.TrimPrefix(ts.URL, "http://")
	s.host, s.port, _ = strings.Cut(u, ":")
	return s
}

// posts are the POST requests received so far.
func (s *benchServer) posts() []seenRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seenRequest(nil), s.seen...)
}

// afterTest are the POST requests after the first: bench's initial test request.
func (s *benchServer) afterTest() []seenRequest {
	posts := s.posts()
	if len(posts) > 0 {
		posts = posts[1:]
	}
	return posts
}

// readRecords decodes the Record lines of an --out json file with the typed decoder
// omnik report uses.
func readRecords(t *testing.T, path string) []*record.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var h recordHandler
	stats, err := metrics.ReadResults(f, metrics.NewRegistry(), &h)
	if err != nil || h.err != nil || stats.Bad > 0 || stats.Truncated {
		t.Fatalf("%s: %v %v %+v", path, err, h.err, stats)
	}
	return h.records
}

// recordHandler keeps the records of a result file.
type recordHandler struct {
	records []*record.Record
	err     error
}

func (h *recordHandler) Samples([]metrics.Sample) {}

func (h *recordHandler) Entry(typ string, data json.RawMessage) error {
	if typ == "Record" {
		r, err := record.Decode(data)
		h.err = errors.Join(h.err, err)
		h.records = append(h.records, r)
	}
	return nil
}

// summaryValue is the value of a summary row, e.g. "Successful requests:".
func summaryValue(t *testing.T, stdout, label string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(label) + ` +(\S+)`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no %q row in the summary:\n%s", label, stdout)
	}
	return m[1]
}

func summaryFloat(t *testing.T, stdout, label string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(summaryValue(t, stdout, label), 64)
	if err != nil {
		t.Fatalf("%s: %v", label, err)
	}
	return v
}

// benchScript is the parsed output of `omnik bench --print-script`: the parameters the
// embedded scenario reads, and its options.
type benchScript struct {
	text         string
	params       map[string]any
	omni         map[string]any
	scenario     map[string]any
	setupTimeout string
}

var (
	scriptParams  = regexp.MustCompile(`(?m)^const bench = (.*);$`)
	scriptOptions = regexp.MustCompile(`(?ms)^export const options = (\{.*?^\});$`)
)

func parseBenchScript(t *testing.T, text string) benchScript {
	t.Helper()
	s := benchScript{text: text}
	find := func(re *regexp.Regexp) string {
		m := re.FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("the script has no match for %s:\n%s", re, text)
		}
		return m[1]
	}
	decode := func(src string, v any) {
		if err := json.Unmarshal([]byte(src), v); err != nil {
			t.Fatalf("decoding %s: %v", src, err)
		}
	}
	decode(find(scriptParams), &s.params)
	var opts struct {
		Omni         map[string]any            `json:"omni"`
		Scenarios    map[string]map[string]any `json:"scenarios"`
		SetupTimeout string                    `json:"setupTimeout"`
	}
	decode(find(scriptOptions), &opts)
	s.omni, s.setupTimeout = opts.Omni, opts.SetupTimeout
	if len(opts.Scenarios) != 1 || opts.Scenarios["bench"] == nil {
		t.Fatalf("scenarios = %v, want one named bench", opts.Scenarios)
	}
	s.scenario = opts.Scenarios["bench"]
	return s
}

// printScript runs `omnik bench --print-script ARGS` and parses what it prints.
func printScript(t *testing.T, args ...string) benchScript {
	t.Helper()
	// In the package directory, so relative dataset paths resolve against testdata/. No
	// goroutine runs here, so the race detector's 1 s wait at exit is skipped.
	r := runOmnik(t, ".", []string{"GORACE=atexit_sleep_ms=0"}, append([]string{"bench", "--print-script"}, args...)...)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("omnik bench --print-script %v:\n%s", args, r)
	}
	return parseBenchScript(t, r.stdout)
}
