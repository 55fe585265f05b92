package omni

import (
	"strings"
	"testing"
)

// FuzzParseConfig: options.omni of any shape gives a configuration or an error, and the
// configuration's printed form never shows the API key.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{`{"baseURL":"http://h:8000/v1","apiKey":"sk-123456789","model":"m"}`, `{"headers":{"X-Api-Key":"k"}}`,
		`{"timeout":"-1s"}`, `{"baseURL":42}`, `null`, `{"insecureSkipTLSVerify":true,"tls":{"caFile":"ca.pem","certFile":"c.pem","keyFile":"k.pem"}}`,
		`{"tls":{"ca":"x"}}`, `{"tls":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		cfg, err := ParseConfig(raw)
		if err != nil || len(cfg.APIKey) < 12 || strings.Contains(cfg.BaseURL+cfg.Model, cfg.APIKey) {
			return
		}
		if strings.Contains(cfg.String(), cfg.APIKey) {
			t.Fatalf("%s printed with its key: %s", raw, cfg)
		}
	})
}
