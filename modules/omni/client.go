package omni

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// client is one target server: its configuration and its own connection pool.
type client struct {
	cfg          Config
	http         *http.Client
	stallTimeout time.Duration

	modelOnce sync.Once
	modelName string
}

func newClient(cfg Config) *client {
	cfg = cfg.withDefaults()
	tr := &http.Transport{
		Proxy:       http.ProxyFromEnvironment,
		DialContext: (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		// No artificial cap: a load test must open as many connections as it has requests.
		MaxIdleConns:        0,
		MaxIdleConnsPerHost: 100000,
		IdleConnTimeout:     90 * time.Second,
		// Compressed SSE would hold events in the decompressor and skew chunk times.
		DisableCompression: true,
	}
	return &client{cfg: cfg, http: &http.Client{Transport: tr}, stallTimeout: cfg.StallTimeout.D()}
}

// model is the configured model, or the first one GET /v1/models lists (asked once).
func (c *client) model(ctx context.Context) string {
	if c.cfg.Model != "" {
		return c.cfg.Model
	}
	c.modelOnce.Do(func() {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.cfg.BaseURL+"/v1/models", nil)
		if err != nil {
			return
		}
		req.Header = c.cfg.header(nil)
		resp, err := c.http.Do(req)
		if err != nil {
			return
		}
		defer resp.Body.Close()
		var list struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		if json.NewDecoder(resp.Body).Decode(&list) == nil && len(list.Data) > 0 {
			c.modelName = list.Data[0].ID
		}
	})
	return c.modelName
}

func (c *client) close() { c.http.CloseIdleConnections() }

// stallWatch fails a body read that waits longer than the stall timeout for data: it
// closes the body, which ends the blocked read.
type stallWatch struct {
	body  io.Reader
	timer *time.Timer
	limit time.Duration
	fired atomic.Bool
}

func newStallWatch(body io.Reader, limit time.Duration) *stallWatch {
	w := &stallWatch{body: body, limit: limit}
	if closer, ok := body.(io.Closer); ok && limit > 0 {
		w.timer = time.AfterFunc(limit, func() {
			w.fired.Store(true)
			closer.Close()
		})
	}
	return w
}

func (w *stallWatch) Read(p []byte) (int, error) {
	n, err := w.body.Read(p)
	if n > 0 && w.timer != nil {
		w.timer.Reset(w.limit)
	}
	return n, err
}

func (w *stallWatch) stalled() bool { return w.fired.Load() }

func (w *stallWatch) stop() {
	if w.timer != nil {
		w.timer.Stop()
	}
}
