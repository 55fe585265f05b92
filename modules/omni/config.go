// Package omni is the `omni` JavaScript module: chat, image and speech calls against
// vLLM-Omni and OpenAI-compatible servers, each timed in Go per chunk and per server
// stage, recorded as request records and metric samples, and summarised in the
// Serving/Stage Benchmark Result blocks of `vllm bench serve --omni`.
package omni

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/client"
	"github.com/omnik-dev/omnik/modules/omni/record"
	"github.com/omnik-dev/omnik/modules/tlsclient"
)

// Config is options.omni, overridden by OMNI_* variables and CLI flags.
type Config struct {
	BaseURL      string            `json:"baseURL"`
	APIKey       string            `json:"apiKey"`
	Model        string            `json:"model"`
	Timeout      Duration          `json:"timeout"`
	StallTimeout Duration          `json:"stallTimeout"`
	Headers      map[string]string `json:"headers"`
	// InsecureSkipTLSVerify accepts any server certificate (self-signed test servers).
	InsecureSkipTLSVerify bool `json:"insecureSkipTLSVerify"`
	// TLS names a CA bundle trusted beside the system's roots and a client certificate.
	TLS tlsclient.Files `json:"tls"`
	// Target names the client in the `target` tag; empty for the default client.
	Target string `json:"target"`
	// The limits of what one response may make omnik hold (docs/cli.md, "Limits"); zero
	// takes the endpoint's default.
	MaxBodyBytes  int64 `json:"maxBodyBytes"`
	MaxEventBytes int   `json:"maxEventBytes"`
	MaxTextBytes  int   `json:"maxTextBytes"`
	MaxChunks     int   `json:"maxChunks"`
}

// Defaults every request gets unless the script says otherwise.
const (
	DefaultBaseURL      = "http://127.0.0.1:8000"
	DefaultTimeout      = 10 * time.Minute
	DefaultStallTimeout = time.Minute
)

// ParseConfig decodes options.omni (may be empty) and applies the environment:
// OMNI_BASE_URL, OMNI_API_KEY (else OPENAI_API_KEY), OMNI_MODEL.
func ParseConfig(raw json.RawMessage) (Config, error) {
	var c Config
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &c); err != nil {
			return c, fmt.Errorf("options.omni: %w", err)
		}
	}
	if v := os.Getenv("OMNI_BASE_URL"); v != "" {
		c.BaseURL = v
	}
	if v := os.Getenv("OMNI_API_KEY"); v != "" {
		c.APIKey = v
	} else if v := os.Getenv("OPENAI_API_KEY"); v != "" && c.APIKey == "" {
		c.APIKey = v
	}
	if v := os.Getenv("OMNI_MODEL"); v != "" {
		c.Model = v
	}
	for _, l := range []struct {
		name string
		v    int64
	}{{"maxBodyBytes", c.MaxBodyBytes}, {"maxEventBytes", int64(c.MaxEventBytes)}, {"maxTextBytes", int64(c.MaxTextBytes)}, {"maxChunks", int64(c.MaxChunks)}} {
		// Past 1 GiB a chunk's byte count no longer fits a record's int32.
		if l.v < 0 || l.v > maxLimit {
			return c, fmt.Errorf("options.omni.%s: %d is not between 0 (the default) and %d", l.name, l.v, maxLimit)
		}
	}
	return c.withDefaults(), nil
}

// maxLimit bounds every configured limit (1 GiB).
const maxLimit = 1 << 30

// limits are the configured limits; zero fields take each endpoint's default.
func (c Config) limits() client.Limits {
	return client.Limits{Body: c.MaxBodyBytes, Event: c.MaxEventBytes,
		Limits: record.Limits{Text: c.MaxTextBytes, Chunks: c.MaxChunks}}
}

func (c Config) withDefaults() Config {
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	c.BaseURL = strings.TrimSuffix(c.BaseURL, "/v1")
	if c.Timeout <= 0 {
		c.Timeout = Duration(DefaultTimeout)
	}
	if c.StallTimeout <= 0 {
		c.StallTimeout = Duration(DefaultStallTimeout)
	}
	return c
}

// header builds the headers of every request: JSON, the bearer token, the extras.
func (c Config) header(extra map[string]string) http.Header {
	h := http.Header{}
	if c.APIKey != "" {
		h.Set("Authorization", "Bearer "+c.APIKey)
	}
	for k, v := range c.Headers {
		h.Set(k, v)
	}
	for k, v := range extra {
		h.Set(k, v)
	}
	return h
}

// Header is what every request to the target carries besides its body's headers: the
// bearer token and options.omni.headers (the scraper of the target's /metrics sends them).
func (c Config) Header() http.Header { return c.header(nil) }

// String never shows the API key.
func (c Config) String() string {
	key := "none"
	if c.APIKey != "" {
		key = "set"
	}
	return fmt.Sprintf("baseURL=%s model=%s apiKey=%s", c.BaseURL, c.Model, key)
}

// Duration reads "30s" or a number of milliseconds.
type Duration time.Duration

// UnmarshalJSON implements json.Unmarshaler.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch x := v.(type) {
	case float64:
		*d = Duration(time.Duration(x * float64(time.Millisecond)))
	case string:
		p, err := time.ParseDuration(x)
		if err != nil {
			return fmt.Errorf("duration %q: %w", x, err)
		}
		*d = Duration(p)
	default:
		return fmt.Errorf("duration: want a string like \"30s\" or milliseconds, got %s", b)
	}
	return nil
}

// D is the value as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }
