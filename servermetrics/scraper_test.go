package servermetrics

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

func since() time.Duration { return 0 }

func newTestScraper(t *testing.T, url string, o Options) *Scraper {
	t.Helper()
	o.URL = url
	s, err := NewScraper(o, since)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestScraperReadsAPageAndAsksForTheTextFormat(t *testing.T) {
	var accept, auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		accept, auth = r.Header.Get("Accept"), r.Header.Get("Authorization")
		w.Write([]byte(page{running: 3}.String()))
	}))
	defer srv.Close()
	s := newTestScraper(t, srv.URL+"/metrics", Options{Header: http.Header{"Authorization": {"Bearer k"}}})
	sc := s.Read(context.Background(), Before)
	if sc.Err != "" || len(sc.Points) == 0 || sc.Phase != Before {
		t.Fatalf("%+v", sc)
	}
	if !strings.HasPrefix(accept, "text/plain;version=0.0.4") || auth != "Bearer k" {
		t.Fatalf("Accept %q, Authorization %q", accept, auth)
	}
}

func TestScraperFailuresAreKindsWithOneLine(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/404":
			http.NotFound(w, r)
		case "/huge":
			w.Write([]byte(strings.Repeat("# comment line\n", 1000)))
		case "/malformed":
			w.Write([]byte("vllm:x{ 1\n"))
		case "/stall":
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
			select {
			case <-block:
			case <-r.Context().Done():
			}
		}
	}))
	defer srv.Close()
	for path, want := range map[string]string{"/404": "status_404", "/huge": "too_large", "/malformed": "malformed", "/stall": "timeout"} {
		s := newTestScraper(t, srv.URL+path, Options{MaxBytes: 1000, Timeout: 100 * time.Millisecond})
		sc := s.Read(context.Background(), During)
		if sc.Err != want || strings.Contains(sc.Detail, "\n") || sc.Detail == "" {
			t.Errorf("%s: kind %q detail %q, want %q", path, sc.Err, sc.Detail, want)
		}
	}
	s := newTestScraper(t, "http://127.0.0.1:1/metrics", Options{})
	if sc := s.Read(context.Background(), During); sc.Err != "connect" {
		t.Errorf("a closed port: %q, want connect", sc.Err)
	}
}

func TestScraperNeverPrintsTheURLsCredentials(t *testing.T) {
	s := newTestScraper(t, "http://user:hunter2@127.0.0.1:1/metrics?token=abc", Options{})
	sc := s.Read(context.Background(), During)
	for _, text := range []string{sc.Detail, s.URL()} {
		if strings.Contains(text, "hunter2") || strings.Contains(text, "abc") {
			t.Fatalf("a credential in %q", text)
		}
	}
	if _, err := NewScraper(Options{URL: "ftp://u:hunter2@x/"}, since); err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("error %v", err)
	}
}

func TestScraperStopCutsAReadShortAndPublishesEveryPage(t *testing.T) {
	var mu sync.Mutex
	served := 0
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		served++
		n := served
		mu.Unlock()
		if n >= 3 { // the third read hangs until Stop cuts it
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		w.Write([]byte(page{running: float64(n)}.String()))
	}))
	defer srv.Close()
	defer close(release)
	s := newTestScraper(t, srv.URL, Options{Interval: 10 * time.Millisecond, Timeout: time.Hour})
	pages := make(chan Scrape, 16)
	s.Start(func() Phase { return During }, func(sc Scrape) { pages <- sc })
	for range 2 {
		if sc := <-pages; sc.Err != "" || sc.Phase != During {
			t.Fatalf("%+v", sc)
		}
	}
	for {
		mu.Lock()
		n := served
		mu.Unlock()
		if n >= 3 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	s.Stop() // returns only once the hanging read was cut
	close(pages)
	var cut []Scrape
	for sc := range pages {
		cut = append(cut, sc)
	}
	if len(cut) != 1 || cut[0].Err != "cancelled" {
		t.Fatalf("after Stop: %+v, want the one cut read, cancelled", cut)
	}
}

func TestScraperFollowsNoRedirect(t *testing.T) {
	var leaked []string
	var mu sync.Mutex
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		leaked = append(leaked, r.Header.Get("X-Api-Key"))
		mu.Unlock()
		w.Write([]byte(page{}.String()))
	}))
	defer other.Close()
	target := httptest.NewServer(http.RedirectHandler(other.URL+"/metrics", http.StatusFound))
	defer target.Close()
	s := newTestScraper(t, target.URL+"/metrics", Options{Header: http.Header{"X-Api-Key": {"sk-secret"}}})
	defer s.Close()
	if sc := s.Read(context.Background(), During); sc.Err != "status_302" {
		t.Fatalf("a redirect gave %+v, want status_302", sc)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(leaked) > 0 {
		t.Fatalf("the redirect was followed, with the target's headers %q", leaked)
	}
}

func TestParseLeavesOutSeriesPastTheNameBounds(t *testing.T) {
	long := strings.Repeat("x", maxLabelBytes+1)
	text := "# TYPE vllm:g gauge\nvllm:g{stage=\"" + long + "\"} 1\nvllm:g{stage=\"ok\"} 2\n"
	pts, refused, err := Parse([]byte(text), recognised)
	if err != nil || len(pts) != 1 || refused != 1 {
		t.Fatalf("%d points, %d refused, %v: want the short series kept and the long one counted", len(pts), refused, err)
	}
}
