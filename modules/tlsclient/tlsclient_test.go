package tlsclient

import (
	"crypto/tls"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omnik-dev/omnik/internal/tlstest"
)

// Nothing set is Go's defaults; each setting lands in the configuration.
func TestConfigCarriesEachSetting(t *testing.T) {
	t.Parallel()
	pki := tlstest.New(t)
	if c, err := Config(false, Files{}); c != nil || err != nil {
		t.Errorf("nothing set: %v, %v; want nil, nil", c, err)
	}
	c, err := Config(true, Files{CAFile: pki.CAFile, CertFile: pki.CertFile, KeyFile: pki.KeyFile})
	if err != nil {
		t.Fatal(err)
	}
	if !c.InsecureSkipVerify || c.RootCAs == nil || len(c.Certificates) != 1 {
		t.Errorf("config = %+v, want insecure, the CA and one client certificate", c)
	}
}

// The CLI's files replace the script's: the CA alone, the certificate with its key.
func TestFilesOverReplacesTheCAAloneAndTheKeyPairWhole(t *testing.T) {
	t.Parallel()
	script := Files{CAFile: "s-ca", CertFile: "s-cert", KeyFile: "s-key"}
	for _, tt := range []struct {
		flags, want Files
	}{
		{Files{}, script},
		{Files{CAFile: "f-ca"}, Files{CAFile: "f-ca", CertFile: "s-cert", KeyFile: "s-key"}},
		{Files{CertFile: "f-cert", KeyFile: "f-key"}, Files{CAFile: "s-ca", CertFile: "f-cert", KeyFile: "f-key"}},
		{Files{CertFile: "f-cert"}, Files{CAFile: "s-ca", CertFile: "f-cert"}},
	} {
		if got := script.Over(tt.flags); got != tt.want {
			t.Errorf("%+v over the script's = %+v, want %+v", tt.flags, got, tt.want)
		}
	}
}

// Every bad file is refused with a message that names it, and no message quotes the key.
func TestBadFilesAreRefusedByName(t *testing.T) {
	t.Parallel()
	pki, other := tlstest.New(t), tlstest.New(t)
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	garbage := write("garbage.pem", "not a PEM file\n")
	key, err := os.ReadFile(pki.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.pem")
	for _, tt := range []struct {
		name  string
		files Files
		want  string
	}{
		{"missing CA file", Files{CAFile: missing}, `TLS CA file "` + missing + `": no such file or directory`},
		{"CA file without a certificate", Files{CAFile: garbage}, `TLS CA file "` + garbage + `" holds no PEM certificate`},
		{"CA file holding a key", Files{CAFile: pki.KeyFile}, `TLS CA file "` + pki.KeyFile + `" holds no PEM certificate`},
		{"certificate without key", Files{CertFile: pki.CertFile}, `TLS client certificate "` + pki.CertFile + `" has no key: set keyFile (--tls-key) too`},
		{"key without certificate", Files{KeyFile: pki.KeyFile}, `TLS client key "` + pki.KeyFile + `" has no certificate: set certFile (--tls-cert) too`},
		{"missing certificate", Files{CertFile: missing, KeyFile: pki.KeyFile}, `TLS client certificate "` + missing + `": no such file or directory`},
		{"missing key", Files{CertFile: pki.CertFile, KeyFile: missing}, `TLS client key "` + missing + `": no such file or directory`},
		{"certificate file holding a key", Files{CertFile: pki.KeyFile, KeyFile: pki.KeyFile}, `TLS client certificate "` + pki.KeyFile + `" holds no PEM certificate`},
		{"key file holding a certificate", Files{CertFile: pki.CertFile, KeyFile: pki.CertFile}, `TLS client key "` + pki.CertFile + `" holds no PEM private key`},
		{"key of another certificate", Files{CertFile: pki.CertFile, KeyFile: other.KeyFile},
			`TLS client certificate "` + pki.CertFile + `" with key "` + other.KeyFile + `": tls: private key does not match public key`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := Config(false, tt.files)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("Config = %v, %v; want the error %q", c, err, tt.want)
			}
			b, _ := pem.Decode(key)
			if body := string(pem.EncodeToMemory(b)); strings.Contains(err.Error(), strings.Split(body, "\n")[1]) {
				t.Errorf("the message quotes the key: %v", err)
			}
		})
	}
}

// The failures a misconfigured client meets are TLS errors; a refused connection is not.
func TestIsErrorTellsTLSFailuresFromOthers(t *testing.T) {
	t.Parallel()
	pki := tlstest.New(t)
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	verifying := pki.Serve(t, ok, false)
	mutual := pki.Serve(t, ok, true)
	plain := httptest.NewServer(ok)
	t.Cleanup(plain.Close)
	closed := httptest.NewServer(ok)
	closed.Close()
	trusting, err := Config(false, Files{CAFile: pki.CAFile})
	if err != nil {
		t.Fatal(err)
	}
	get := func(c *tls.Config, url string) error {
		hc := &http.Client{Transport: &http.Transport{TLSClientConfig: c}}
		defer hc.CloseIdleConnections()
		resp, err := hc.Get(url)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	for _, tt := range []struct {
		name    string
		tls     *tls.Config
		url     string
		isTLS   bool
		message string
	}{
		{"unknown authority", nil, verifying.URL, true, "certificate signed by unknown authority"},
		{"no client certificate", trusting, mutual.URL, true, "handshake failure"},
		{"https to a plain server", nil, strings.Replace(plain.URL, "http:", "https:", 1), true, "HTTP response to HTTPS client"},
		{"nothing listening", nil, strings.Replace(closed.URL, "http:", "https:", 1), false, "refused"},
	} {
		err := get(tt.tls, tt.url)
		if err == nil || IsError(err) != tt.isTLS || !strings.Contains(err.Error(), tt.message) {
			t.Errorf("%s: IsError(%v) = %v, want %v and a message with %q", tt.name, err, err != nil && IsError(err), tt.isTLS, tt.message)
		}
	}
}
