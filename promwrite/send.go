package promwrite

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/omnik-dev/omnik/modules/httpdebug"
	"github.com/prometheus/client_golang/exp/api/remote"
)

// backoff is the client library's retry of a network error, 5xx or 429 within one push.
// Few and short: the next push carries the whole state again anyway, and the push's
// deadline cuts the retries short.
var backoff = remote.BackoffConfig{Min: 250 * time.Millisecond, Max: time.Second, MaxRetries: 2}

// sender pushes on its own goroutine, so a slow receiver holds up nothing but itself.
type sender struct {
	api       *remote.API
	transport *http.Transport
	secrets   []string // header values no error may quote
}

func newSender(c *Config) (*sender, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	client := &http.Client{
		Transport: &headerTransport{base: tr, header: c.Header},
		// A redirect would carry the credentials elsewhere; a receiver does not redirect.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	api, err := remote.NewAPI(c.URL.String(), remote.WithAPIPath(""), remote.WithAPIHTTPClient(client), remote.WithAPIBackoff(backoff))
	if err != nil {
		return nil, err
	}
	return &sender{api: api, transport: tr, secrets: httpdebug.HeaderSecrets(c.Header)}, nil
}

// outcome is how one push went.
type outcome struct {
	p       *push
	err     error // redacted
	unsent  int   // points in the requests that failed or were not sent
	refused bool  // the receiver refused native histograms
}

// send sends p's requests in order until one fails, each within the push's deadline.
// When p carries native histograms and fallback is set, an answer that refuses them
// ends the push at once, retries left out, so the classic resend has the time left.
func (s *sender) send(ctx context.Context, p *push, fallback bool) outcome {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	o := outcome{p: p}
	var refusal, retried error
	onRetry := remote.WithWriteRetryCallback(func(err error) {
		retried = err
		if fallback && p.native && refusesHistograms(err) {
			refusal = err
			cancel()
		}
	})
	for i, req := range p.reqs {
		_, err := s.api.Write(ctx, remote.WriteV1MessageType, req, onRetry)
		if err == nil {
			continue
		}
		if refusal != nil {
			err = refusal
		}
		o.refused = fallback && p.native && refusesHistograms(err)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			// The deadline may come during a backoff: the retried error says why.
			if retried != nil {
				err = retried
			}
			err = fmt.Errorf("timed out (the push's timeout, retries included): %w", err)
		}
		// A server's answer ends with a newline, and may hold more.
		o.err = errors.New(s.redact(strings.Join(strings.Fields(err.Error()), " ")))
		for _, n := range p.points[i:] {
			o.unsent += n
		}
		break
	}
	return o
}

func (s *sender) redact(msg string) string {
	return httpdebug.RedactValues(httpdebug.RedactText(msg), s.secrets)
}

// refusesHistograms tells a receiver's refusal of native histograms from other
// failures: an HTTP error whose answer names them. Prometheus without
// --enable-feature=native-histograms answers 500 "native histograms are disabled" and
// keeps nothing of the request.
func refusesHistograms(err error) bool {
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "server returned http status") && strings.Contains(msg, "histogram")
}

// headerTransport adds the configured headers (credentials) to every request.
type headerTransport struct {
	base   http.RoundTripper
	header http.Header
}

func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, vs := range t.header {
		r.Header[k] = vs
	}
	r.Header.Set("User-Agent", "omnik")
	return t.base.RoundTrip(r)
}
