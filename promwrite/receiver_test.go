package promwrite

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/snappy"
	"github.com/prometheus/prometheus/prompb"
)

// receiver is a remote-write endpoint that decodes every request as Prometheus does
// (snappy, then the v1 protobuf) and keeps what it accepted.
type receiver struct {
	*httptest.Server
	t testing.TB
	// answer, when set, decides the reply to a decoded request: 0 accepts it.
	answer func(req *prompb.WriteRequest, h http.Header) (status int, body string)
	// hang makes every request wait until it is closed or the client gives up.
	hang chan struct{}

	mu       sync.Mutex
	accepted []*prompb.WriteRequest
	refused  int
	headers  []http.Header
}

func newReceiver(t testing.TB) *receiver {
	r := &receiver{t: t}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(func() {
		if r.hang != nil {
			select {
			case <-r.hang:
			default:
				close(r.hang)
			}
		}
		r.Close()
	})
	return r
}

func (r *receiver) serve(w http.ResponseWriter, hr *http.Request) {
	if r.hang != nil {
		select {
		case <-r.hang:
		case <-hr.Context().Done():
			return
		}
	}
	body, _ := io.ReadAll(hr.Body)
	raw, err := snappy.Decode(nil, body)
	if err != nil {
		http.Error(w, "snappy: "+err.Error(), http.StatusBadRequest)
		return
	}
	var req prompb.WriteRequest
	if err := req.Unmarshal(raw); err != nil {
		http.Error(w, "proto: "+err.Error(), http.StatusBadRequest)
		return
	}
	if ct := hr.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		http.Error(w, "content type "+ct, http.StatusUnsupportedMediaType)
		return
	}
	for _, ts := range req.Timeseries {
		if !sort.SliceIsSorted(ts.Labels, func(i, j int) bool { return ts.Labels[i].Name < ts.Labels[j].Name }) {
			http.Error(w, "labels not sorted", http.StatusBadRequest)
			return
		}
	}
	r.mu.Lock()
	r.headers = append(r.headers, hr.Header.Clone())
	r.mu.Unlock()
	if r.answer != nil {
		if status, msg := r.answer(&req, hr.Header); status != 0 {
			r.mu.Lock()
			r.refused++
			r.mu.Unlock()
			http.Error(w, msg, status)
			return
		}
	}
	r.mu.Lock()
	r.accepted = append(r.accepted, &req)
	r.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// requests are the requests accepted so far.
func (r *receiver) requests() []*prompb.WriteRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*prompb.WriteRequest(nil), r.accepted...)
}

// refusals is how many requests the receiver refused.
func (r *receiver) refusals() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.refused
}

// header is the headers of the first request.
func (r *receiver) header() http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.headers) == 0 {
		r.t.Fatal("no request")
	}
	return r.headers[0]
}

// latest is every series' newest sample or histogram, by its key ("name{a="b"}").
func (r *receiver) latest() map[string]prompb.TimeSeries {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]prompb.TimeSeries{}
	stamp := func(ts prompb.TimeSeries) int64 {
		if len(ts.Samples) > 0 {
			return ts.Samples[len(ts.Samples)-1].Timestamp
		}
		return ts.Histograms[len(ts.Histograms)-1].Timestamp
	}
	for _, req := range r.accepted {
		for _, ts := range req.Timeseries {
			k := seriesString(ts.Labels)
			if old, ok := out[k]; !ok || stamp(ts) >= stamp(old) {
				out[k] = ts
			}
		}
	}
	return out
}

// value is the latest sample of the series with that key; it fails the test if none.
func (r *receiver) value(key string) float64 {
	r.t.Helper()
	ts, ok := r.latest()[key]
	if !ok || len(ts.Samples) == 0 {
		r.t.Fatalf("no samples of %s; have:\n%s", key, strings.Join(r.keys(), "\n"))
	}
	return ts.Samples[len(ts.Samples)-1].Value
}

func (r *receiver) keys() []string {
	var ks []string
	for k := range r.latest() {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// seriesString is a label set as PromQL writes it: name{a="b",c="d"}.
func seriesString(ls []prompb.Label) string {
	var name string
	var rest []string
	for _, l := range ls {
		if l.Name == "__name__" {
			name = l.Value
			continue
		}
		rest = append(rest, fmt.Sprintf("%s=%q", l.Name, l.Value))
	}
	return name + "{" + strings.Join(rest, ",") + "}"
}

// hasHistograms reports whether req carries a native histogram.
func hasHistograms(req *prompb.WriteRequest) bool {
	for _, ts := range req.Timeseries {
		if len(ts.Histograms) > 0 {
			return true
		}
	}
	return false
}

// prometheus242 answers like Prometheus 2.42 without --enable-feature=native-histograms:
// 500, and nothing of the request kept.
func prometheus242(req *prompb.WriteRequest, _ http.Header) (int, string) {
	if hasHistograms(req) {
		return http.StatusInternalServerError, "native histograms are disabled"
	}
	return 0, ""
}
