package http

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"testing"

	"github.com/omnik-dev/omnik/internal/tlstest"
	"github.com/omnik-dev/omnik/modules/tlsclient"
)

// omnik/http follows the run's TLS settings: an untrusted server is a tls failure until
// insecure or its CA file, and a server requiring a client certificate takes the one
// configured.
func TestTLSSettingsReachOmnikHTTP(t *testing.T) {
	t.Parallel()
	pki := tlstest.New(t)
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	verifying, mutual := pki.Serve(t, ok, false), pki.Serve(t, ok, true)
	config := func(insecure bool, f tlsclient.Files) *tls.Config {
		c, err := tlsclient.Config(insecure, f)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	withCA := tlsclient.Files{CAFile: pki.CAFile}
	for _, tt := range []struct {
		name          string
		e             env
		kind, message string // error_code and part of error; "" when the call succeeds
	}{
		{"verifying by default", env{srv: verifying}, "tls", "certificate signed by unknown authority"},
		{"insecure", env{srv: verifying, tls: config(true, tlsclient.Files{})}, "", ""},
		{"CA file", env{srv: verifying, tls: config(false, withCA)}, "", ""},
		{"mutual TLS without a client certificate", env{srv: mutual, tls: config(false, withCA)}, "tls", "handshake failure"},
		{"mutual TLS with the client certificate", env{srv: mutual, tls: config(false,
			tlsclient.Files{CAFile: pki.CAFile, CertFile: pki.CertFile, KeyFile: pki.KeyFile})}, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mustRun(t, tt.e, fmt.Sprintf(`import http from 'omnik/http';
export default function () {
  const r = http.get('/health');
  if (r.error_code !== %q || !r.error.includes(%q)) throw new Error(r.error_code + ': ' + r.error);
  globalThis.ok = 'ok';
}`, tt.kind, tt.message))
		})
	}
}
