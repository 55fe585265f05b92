package promtest

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A started Prometheus is ready, empty, answers queries and takes remote writes; the
// native-histograms flag is what the option says.
func TestStart(t *testing.T) {
	t.Parallel()
	s := Start(t, NativeHistograms())
	if v := s.Value(t, "vector(42)", time.Now()); v != 42 {
		t.Errorf("vector(42) = %v", v)
	}
	if got := s.Query(t, `{__name__=~".+"}`, time.Now()); len(got) != 0 {
		t.Errorf("a fresh TSDB holds %v", got)
	}
	// An empty body is not a valid write request, but the receiver is there to say so.
	resp, err := http.Post(s.WriteURL(), "application/x-protobuf", strings.NewReader(""))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		t.Error("no remote-write receiver")
	}
	resp, err = http.Get(s.URL + "/api/v1/status/flags")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	_, _ = io.Copy(&b, resp.Body)
	if !strings.Contains(b.String(), `"enable-feature":"native-histograms"`) {
		t.Errorf("flags: %s", b.String())
	}
}
