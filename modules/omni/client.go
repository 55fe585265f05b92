package omni

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/omnik-dev/omnik/modules/httpdebug"
	"github.com/omnik-dev/omnik/modules/omni/client"
)

// Model discovery: how long one GET /v1/models may take, and how long a failed one keeps
// later calls from asking again.
const (
	modelLookupTimeout = 10 * time.Second
	modelRetryEvery    = 5 * time.Second
)

// target is one server: its configuration, its own connection pool and its websocket
// dialer.
type target struct {
	cfg  Config
	http *http.Client
	ws   *websocket.Dialer
	// warn reports a problem the run goes on with (model discovery failing); the Module
	// sets it, a no-op by default.
	warn func(string)

	models modelLookup
	// life ends at close, stopping a model lookup still running.
	life context.Context
	end  context.CancelFunc
}

// errClosed is a model lookup stopped by the end of the run: nothing to warn about.
var errClosed = errors.New("omni: client closed")

// newTarget makes the client of cfg; tc is cfg's TLS settings with their files read
// (Config.tlsConfig), nil for Go's defaults.
func newTarget(cfg Config, tc *tls.Config) *target {
	cfg = cfg.withDefaults()
	ws := &websocket.Dialer{Proxy: http.ProxyFromEnvironment, HandshakeTimeout: 30 * time.Second, TLSClientConfig: tc}
	hc := client.NewHTTPClient()
	hc.Transport.(*http.Transport).TLSClientConfig = tc
	life, end := context.WithCancel(context.Background())
	return &target{cfg: cfg, http: hc, ws: ws, warn: func(string) {}, life: life, end: end}
}

// model is the configured model, else the first one GET /v1/models lists; "" while the
// server has not answered (requests then go without a model).
func (c *target) model(ctx context.Context) string {
	if c.cfg.Model != "" {
		return c.cfg.Model
	}
	return c.models.get(ctx, c.listModels, c.warn)
}

// listModels asks the server for its first model, on the target's context: the caller's
// may end (its iteration did) while later calls still want the answer.
func (c *target) listModels() (string, error) {
	ctx, cancel := context.WithTimeout(c.life, modelLookupTimeout)
	defer cancel()
	url := c.cfg.BaseURL + "/v1/models"
	shown := httpdebug.RedactText(url) // the warning prints it: no user info
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	req.Header = c.cfg.header(nil)
	resp, err := c.http.Do(req)
	if err != nil {
		if c.life.Err() != nil {
			return "", errClosed
		}
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return "", fmt.Errorf("GET %s: HTTP %s", shown, resp.Status)
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&list); err != nil {
		return "", fmt.Errorf("GET %s: %w", shown, err)
	}
	if len(list.Data) == 0 || list.Data[0].ID == "" {
		return "", fmt.Errorf("GET %s lists no model", shown)
	}
	return list.Data[0].ID, nil
}

// modelLookup remembers a discovered model. One lookup runs at a time, callers meanwhile
// wait for it (or for their own context); after a failure no lookup starts for
// modelRetryEvery, and the first failure is reported once.
type modelLookup struct {
	mu       sync.Mutex
	name     string
	running  chan struct{} // closed when the running lookup ends; nil when none runs
	notAfter time.Time     // no new lookup before this, after a failure
	warned   bool
	now      func() time.Time // time.Now unless a test sets it
}

func (l *modelLookup) get(ctx context.Context, lookup func() (string, error), warn func(string)) string {
	l.mu.Lock()
	if l.name != "" {
		defer l.mu.Unlock()
		return l.name
	}
	if l.running == nil {
		if l.clock().Before(l.notAfter) {
			l.mu.Unlock()
			return ""
		}
		l.running = make(chan struct{})
		go l.run(lookup, warn, l.running)
	}
	running := l.running
	l.mu.Unlock()
	select {
	case <-running:
	case <-ctx.Done():
		return ""
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.name
}

func (l *modelLookup) run(lookup func() (string, error), warn func(string), done chan struct{}) {
	name, err := lookup()
	l.mu.Lock()
	l.running = nil
	first := false
	if err == nil {
		l.name = name
	} else {
		l.notAfter = l.clock().Add(modelRetryEvery)
		first, l.warned = !l.warned, true
	}
	l.mu.Unlock()
	// Warned before the waiting callers go on: whoever saw the lookup fail can count on
	// the warning being out.
	if first && !errors.Is(err, errClosed) {
		warn(fmt.Sprintf("omni: no model given and discovering one failed: %v; requests go without a model until it succeeds (asked again at most every %v). Set options.omni.model or OMNI_MODEL.", err, modelRetryEvery))
	}
	close(done)
}

func (l *modelLookup) clock() time.Time {
	if l.now != nil {
		return l.now()
	}
	return time.Now()
}

func (c *target) close() {
	c.end()
	c.http.CloseIdleConnections()
}
