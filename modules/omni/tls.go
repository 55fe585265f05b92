package omni

import (
	"crypto/tls"
	"encoding/json"

	"github.com/omnik-dev/omnik/modules/tlsclient"
)

// tlsConfig reads the TLS files: once per target, never per request.
func (c Config) tlsConfig() (*tls.Config, error) {
	return tlsclient.Config(c.InsecureSkipTLSVerify, c.TLS)
}

// clientTLS applies omni.client()'s insecureSkipTLSVerify and tls: its tls replaces the
// default's files as a whole, as headers do. It reports whether either was given.
func clientTLS(raw map[string]any, cfg *Config) (bool, error) {
	insecure, setInsecure := raw["insecureSkipTLSVerify"].(bool)
	if setInsecure {
		cfg.InsecureSkipTLSVerify = insecure
	}
	files, setFiles := raw["tls"]
	if !setFiles {
		return setInsecure, nil
	}
	// Through JSON, so the script's object is read as options.omni.tls is.
	b, err := json.Marshal(files)
	if err == nil {
		cfg.TLS = tlsclient.Files{}
		err = json.Unmarshal(b, &cfg.TLS)
	}
	return true, err
}
