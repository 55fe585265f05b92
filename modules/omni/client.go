package omni

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"sync"
	"time"
)

// target is one server: its configuration and its own connection pool.
type target struct {
	cfg  Config
	http *http.Client

	modelOnce sync.Once
	modelName string
}

func newTarget(cfg Config) *target {
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
	return &target{cfg: cfg, http: &http.Client{Transport: tr}}
}

// model is the configured model, or the first one GET /v1/models lists (asked once).
func (c *target) model(ctx context.Context) string {
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

func (c *target) close() { c.http.CloseIdleConnections() }
