package omni

import (
	"context"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/client"
	"github.com/omnik-dev/omnik/modules/omni/dataset"
)

// Calibrate sizes random prompts in the server's own tokens: it asks the server's
// /tokenize (vLLM's) to count two probe prompts. client.ErrNoTokenizer means the server
// has none, and prompts keep the one-token-per-word estimate.
func Calibrate(ctx context.Context, cfg Config) (*dataset.Calibration, error) {
	tc, err := cfg.tlsConfig()
	if err != nil {
		return nil, err
	}
	t := newTarget(cfg, tc)
	defer t.close()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	model := t.model(ctx)
	return dataset.Calibrate(ctx, func(ctx context.Context, text string) (int, error) {
		return client.Tokenize(ctx, t.http, t.cfg.BaseURL, t.cfg.header(nil), model, text)
	})
}
