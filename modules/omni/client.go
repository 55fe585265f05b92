package omni

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/omnik-dev/omnik/modules/omni/client"
)

// target is one server: its configuration, its own connection pool and its websocket
// dialer.
type target struct {
	cfg  Config
	http *http.Client
	ws   *websocket.Dialer

	modelOnce sync.Once
	modelName string
}

func newTarget(cfg Config) *target {
	cfg = cfg.withDefaults()
	ws := &websocket.Dialer{Proxy: http.ProxyFromEnvironment, HandshakeTimeout: 30 * time.Second}
	return &target{cfg: cfg, http: client.NewHTTPClient(), ws: ws}
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
