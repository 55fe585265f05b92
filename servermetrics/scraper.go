package servermetrics

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/omnik-dev/omnik/modules/httpdebug"
)

// Defaults of a scraper.
const (
	DefaultInterval = time.Second
	DefaultMaxBytes = 16 << 20 // vLLM's page with every stage and replica is a few hundred KB
	maxTimeout      = 5 * time.Second
)

// Options configure a Scraper.
type Options struct {
	URL      string        // the page: the target's /metrics by default
	Interval time.Duration // between pages during the run (DefaultInterval)
	// Timeout bounds one read of the page: the interval, at most 5 s, by default.
	Timeout  time.Duration
	MaxBytes int64 // a larger page fails as too_large (DefaultMaxBytes)
	// All keeps every family of the page, not only vLLM's and vLLM-Omni's.
	All bool
	// MaxSeries bounds the points kept of one page (DefaultMaxSeries); the rest are
	// counted as refused.
	MaxSeries int
	TLS       *tls.Config // the target's TLS settings
	Header    http.Header // sent with every read (the target's credentials)
}

// Scraper reads the page once before the run, every interval during it and once after.
type Scraper struct {
	opts   Options
	shown  string // the URL as it may be printed
	since  func() time.Duration
	client *http.Client

	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
	running atomic.Bool
}

// NewScraper reads opts.URL; since places its pages on the run's timeline.
func NewScraper(opts Options, since func() time.Duration) (*Scraper, error) {
	u, err := url.Parse(opts.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--server-metrics %q: want an http(s) URL", httpdebug.RedactRawURL(opts.URL))
	}
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	if opts.Timeout <= 0 {
		opts.Timeout = min(opts.Interval, maxTimeout)
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.MaxSeries <= 0 {
		opts.MaxSeries = DefaultMaxSeries
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = opts.TLS
	client := &http.Client{Transport: tr,
		// The target's credentials go to the page's host alone: a redirect is a failed
		// read (status_3xx), never followed.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &Scraper{opts: opts, shown: httpdebug.RedactURL(u), since: since, client: client,
		stop: make(chan struct{}), done: make(chan struct{})}, nil
}

// Interval is the time between pages during the run.
func (s *Scraper) Interval() time.Duration { return s.opts.Interval }

// Close releases the scraper's idle connection: a process may run many tests.
func (s *Scraper) Close() { s.client.CloseIdleConnections() }

// URL is the page's address as it may be printed (credentials redacted).
func (s *Scraper) URL() string { return s.shown }

// Read reads the page once.
func (s *Scraper) Read(ctx context.Context, ph Phase) Scrape {
	sc := s.read(ctx)
	sc.At, sc.Phase = s.since(), ph
	return sc
}

// Start reads the page every interval until Stop, handing each page, read or failed, to
// publish from one goroutine; phase says, at each read, where the run is.
func (s *Scraper) Start(phase func() Phase, publish func(Scrape)) {
	s.running.Store(true)
	go func() {
		defer close(s.done)
		t := time.NewTicker(s.opts.Interval)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
				ctx, cancel := context.WithCancel(context.Background())
				go func() {
					select {
					case <-s.stop:
						cancel()
					case <-ctx.Done():
					}
				}()
				publish(s.Read(ctx, phase()))
				cancel()
			}
		}
	}()
}

// Stop ends the reads Start began and waits for the one under way, which it cuts short.
func (s *Scraper) Stop() {
	s.once.Do(func() { close(s.stop) })
	if s.running.Load() {
		<-s.done
	}
}

func (s *Scraper) read(ctx context.Context) Scrape {
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.opts.URL, nil)
	if err != nil {
		return failed("connect", err.Error())
	}
	for k, vs := range s.opts.Header {
		req.Header[k] = vs
	}
	// The text format: vLLM's prometheus_client answers OpenMetrics only when asked.
	req.Header.Set("Accept", "text/plain;version=0.0.4;q=1,*/*;q=0.1")
	resp, err := s.client.Do(req)
	if err != nil {
		return failed(errorKind(err), withoutURL(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return failed(fmt.Sprintf("status_%d", resp.StatusCode), "answered "+resp.Status)
	}
	page, err := io.ReadAll(io.LimitReader(resp.Body, s.opts.MaxBytes+1))
	if err != nil {
		return failed(errorKind(err), withoutURL(err))
	}
	if int64(len(page)) > s.opts.MaxBytes {
		return failed("too_large", fmt.Sprintf("the page is over %d bytes", s.opts.MaxBytes))
	}
	keep := recognised
	if s.opts.All {
		keep = func(string) bool { return true }
	}
	points, refused, err := Parse(page, keep)
	if err != nil {
		return failed("malformed", cut(err.Error()))
	}
	sc := Scrape{Points: points, Refused: refused}
	if len(points) > s.opts.MaxSeries {
		sc.Points, sc.Refused = points[:s.opts.MaxSeries], refused+len(points)-s.opts.MaxSeries
	}
	return sc
}

func failed(kind, detail string) Scrape { return Scrape{Err: kind, Detail: cut(detail)} }

// withoutURL is err without the URL net/http quotes in it, which may carry a query's
// credentials: the block names the page, redacted, once.
func withoutURL(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}

func errorKind(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	}
	return "connect"
}

// cut keeps a detail to one short line.
func cut(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = strings.ToValidUTF8(s[:200], "") + "…"
	}
	return s
}
