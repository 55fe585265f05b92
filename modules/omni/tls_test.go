package omni

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/omnik-dev/omnik/internal/tlstest"
	"github.com/omnik-dev/omnik/mock"
	"github.com/omnik-dev/omnik/modules/omni/record"
	"github.com/omnik-dev/omnik/modules/tlsclient"
)

// tlsScript sends one chat and one websocket session with the default client.
const tlsScript = `import omni from 'omni';
export default async function () {
  await omni.chat({ model: 'Qwen/Qwen3-Omni-30B-A3B-Instruct', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 });
  await omni.audio.stream({ model: 'Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice', input: 'Hi.' });
}`

// serveSimulator serves the simulator over TLS with pki's server certificate.
func serveSimulator(t *testing.T, pki *tlstest.PKI, requireClient bool) string {
	t.Helper()
	sim, err := mock.New(mock.WithSpeed(20))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	return pki.Serve(t, sim.Handler(), requireClient).URL
}

// runRecords runs src against cfg and returns its records by endpoint.
func runRecords(t *testing.T, cfg Config, src string) map[string]*record.Record {
	t.Helper()
	var mu sync.Mutex
	got := map[string]*record.Record{}
	runScriptIn(t, scriptEnv{cfg: cfg, records: func(r *record.Record) {
		mu.Lock()
		defer mu.Unlock()
		got[r.Endpoint] = r
	}}, src)
	return got
}

// A server whose certificate no system trusts is refused, as a tls failure that says
// why, over HTTP and websocket alike; insecureSkipTLSVerify or its CA file reaches it.
// A server that requires a client certificate refuses a client without one and takes
// the configured one.
func TestTLSSettingsReachHTTPAndWebsocket(t *testing.T) {
	t.Parallel()
	pki := tlstest.New(t)
	verifying, mutual := serveSimulator(t, pki, false), serveSimulator(t, pki, true)
	withCA := tlsclient.Files{CAFile: pki.CAFile}
	withCert := tlsclient.Files{CAFile: pki.CAFile, CertFile: pki.CertFile, KeyFile: pki.KeyFile}
	for _, tt := range []struct {
		name string
		cfg  Config
		fail string // the failure message of both calls, "" when they succeed
	}{
		{"verifying by default", Config{BaseURL: verifying}, "certificate signed by unknown authority"},
		{"insecure", Config{BaseURL: verifying, InsecureSkipTLSVerify: true}, ""},
		{"CA file", Config{BaseURL: verifying, TLS: withCA}, ""},
		{"mutual TLS without a client certificate", Config{BaseURL: mutual, TLS: withCA}, "handshake failure"},
		{"mutual TLS with the client certificate", Config{BaseURL: mutual, TLS: withCert}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := runRecords(t, tt.cfg, tlsScript)
			for _, ep := range []string{record.EndpointChat, record.EndpointAudioStream} {
				r := got[ep]
				switch {
				case r == nil:
					t.Errorf("%s: no record", ep)
				case tt.fail == "" && !r.OK():
					t.Errorf("%s failed: %v", ep, r.Err)
				case tt.fail != "" && (r.OK() || r.Err.Kind != record.KindTLS || !strings.Contains(r.Err.Message, tt.fail)):
					t.Errorf("%s: error %v, want kind %s with %q", ep, r.Err, record.KindTLS, tt.fail)
				}
			}
		})
	}
}

// omni.client() takes its own TLS settings, its tls replacing the default's files; a
// bad file or a misspelt key stops the script in its init code.
func TestScriptClientsTakeTheirOwnTLSSettings(t *testing.T) {
	t.Parallel()
	pki := tlstest.New(t)
	url := serveSimulator(t, pki, true)
	got := runRecords(t, Config{BaseURL: url, TLS: tlsclient.Files{CAFile: pki.CAFile}}, fmt.Sprintf(`import omni from 'omni';
const mtls = omni.client({ baseURL: %[1]q, tls: { caFile: %[2]q, certFile: %[3]q, keyFile: %[4]q } });
const insecure = omni.client({ baseURL: %[1]q, target: 'insecure', insecureSkipTLSVerify: true, tls: { certFile: %[3]q, keyFile: %[4]q } });
export default async function () {
  await mtls.chat({ model: 'Qwen/Qwen3-Omni-30B-A3B-Instruct', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 });
  await insecure.audio.stream({ model: 'Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice', input: 'Hi.' });
  await omni.images.generate({ model: 'ByteDance-Seed/BAGEL-7B-MoT', prompt: 'a lighthouse', size: '64x64' });
}`, url, pki.CAFile, pki.CertFile, pki.KeyFile))
	for ep, ok := range map[string]bool{record.EndpointChat: true, record.EndpointAudioStream: true, record.EndpointImages: false} {
		if r := got[ep]; r == nil || r.OK() != ok {
			t.Errorf("%s: record %+v, want ok %v (the default client has no client certificate)", ep, r, ok)
		}
	}

	m := New()
	t.Cleanup(m.Close)
	for _, tt := range []struct {
		raw  map[string]any
		want string
	}{
		{map[string]any{"tls": map[string]any{"caFile": "missing.pem"}}, `TLS CA file "missing.pem": no such file or directory`},
		{map[string]any{"tls": map[string]any{"ca": pki.CAFile}}, `json: unknown field "ca"`},
		{map[string]any{"tls": map[string]any{"certFile": pki.CertFile}}, `has no key`},
	} {
		if _, _, err := m.newScriptClient(tt.raw); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("omni.client(%v): %v, want an error with %q", tt.raw, err, tt.want)
		}
	}
}

// A bad TLS file is refused when the module is configured, before any request.
func TestConfigureRefusesBadTLSFiles(t *testing.T) {
	t.Parallel()
	m := New()
	t.Cleanup(m.Close)
	err := m.Configure(Config{TLS: tlsclient.Files{CAFile: "nowhere/ca.pem"}})
	if err == nil || err.Error() != `TLS CA file "nowhere/ca.pem": no such file or directory` {
		t.Errorf("Configure = %v", err)
	}
	if _, err := ParseConfig([]byte(`{"tls":{"caFile":"ca.pem","keyfile":"k.pem","cert":"c.pem"}}`)); err == nil ||
		!strings.Contains(err.Error(), strconv.Quote("cert")) {
		t.Errorf("a misspelt key in options.omni.tls: %v, want it named", err)
	}
}
