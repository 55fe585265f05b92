package main

import (
	"os"
	"strings"
	"testing"

	"github.com/omnik-dev/omnik/internal/tlstest"
	"github.com/omnik-dev/omnik/mock"
)

// tlsScript fails its thresholds when its omni call or its omnik/http call fails.
const tlsScript = `import omni from 'omni';
import http from 'omnik/http';
export const options = { iterations: 1, thresholds: { requests_failed: ['rate == 0'], http_req_failed: ['rate == 0'] } };
export default async function () {
  http.get('/health');
  await omni.chat({ model: 'Qwen/Qwen3-Omni-30B-A3B-Instruct', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 });
}
`

// The TLS flags reach both modules' connections: an untrusted server fails as tls until
// --insecure-skip-tls-verify or --tls-ca-file, and a server requiring mutual TLS takes
// --tls-cert and --tls-key.
func TestRunTLSFlags(t *testing.T) {
	t.Parallel()
	pki := tlstest.New(t)
	sim, err := mock.New(mock.WithSpeed(20))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	verifying, mutual := pki.Serve(t, sim.Handler(), false).URL, pki.Serve(t, sim.Handler(), true).URL
	dir := writeFiles(t, map[string]string{"script.js": tlsScript})
	for _, tt := range []struct {
		name string
		args []string
		want expect
	}{
		{"verifying by default", []string{"--base-url", verifying}, expect{code: 99, stdout: []string{"FAILED REQUESTS BY ERROR\n\n    tls                           1  tls: failed to verify certificate: x509: certificate signed by unknown authority\n"}}},
		{"--insecure-skip-tls-verify", []string{"--base-url", verifying, "--insecure-skip-tls-verify"}, expect{code: 0}},
		{"--tls-ca-file", []string{"--base-url", verifying, "--tls-ca-file", pki.CAFile}, expect{code: 0}},
		{"mutual TLS without --tls-cert", []string{"--base-url", mutual, "--tls-ca-file", pki.CAFile}, expect{code: 99, stdout: []string{"    tls                           1  ", "handshake failure"}}},
		{"mutual TLS", []string{"--base-url", mutual, "--tls-ca-file", pki.CAFile, "--tls-cert", pki.CertFile, "--tls-key", pki.KeyFile}, expect{code: 0}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.want.check(t, runOmnik(t, dir, nil, append(append([]string{"run", "-q"}, tt.args...), "script.js")...))
		})
	}
}

// A TLS file that cannot be used stops the run before anything is sent, exit 104, with
// a message naming the file and never the key.
func TestRunRefusesBadTLSFiles(t *testing.T) {
	t.Parallel()
	pki, stranger := tlstest.New(t), tlstest.New(t)
	dir := writeFiles(t, map[string]string{"script.js": tlsScript, "garbage.pem": "not PEM\n"})
	key, err := os.ReadFile(pki.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	keyLine := strings.Split(string(key), "\n")[1]
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"missing CA file", []string{"--tls-ca-file", "missing.pem"}, `TLS CA file "missing.pem": no such file or directory`},
		{"CA file without a certificate", []string{"--tls-ca-file", "garbage.pem"}, `TLS CA file "garbage.pem" holds no PEM certificate`},
		{"certificate without key", []string{"--tls-cert", pki.CertFile}, "--tls-cert and --tls-key go together: give both"},
		{"key without certificate", []string{"--tls-key", pki.KeyFile}, "--tls-cert and --tls-key go together: give both"},
		{"key of another certificate", []string{"--tls-cert", pki.CertFile, "--tls-key", stranger.KeyFile},
			`TLS client certificate "` + pki.CertFile + `" with key "` + stranger.KeyFile + `": tls: private key does not match public key`},
		{"key in the certificate's place", []string{"--tls-cert", pki.KeyFile, "--tls-key", pki.KeyFile},
			`TLS client certificate "` + pki.KeyFile + `" holds no PEM certificate`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Nothing listens at the base URL: the run must stop before it would connect.
			args := append([]string{"run", "-q", "--base-url", "https://127.0.0.1:9"}, tt.args...)
			expect{code: 104, stderr: []string{tt.want}, notStderr: []string{keyLine}, notStdout: []string{keyLine, "THRESHOLDS"}}.check(t,
				runOmnik(t, dir, nil, append(args, "script.js")...))
		})
	}
}
