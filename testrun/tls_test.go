package testrun

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/internal/tlstest"
	"github.com/omnik-dev/omnik/mock"
	"github.com/omnik-dev/omnik/modules/tlsclient"
)

// tlsScript makes one omni call and one omnik/http call; its thresholds fail the run
// when either fails.
const tlsScript = `import omni from 'omni';
import http from 'omnik/http';
export default async function () {
  http.get('/v1/models');
  await omni.chat({ model: 'Qwen/Qwen3-Omni-30B-A3B-Instruct', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 });
}`

// The TLS settings layer as the other options do: the script's options.omni and k6's
// top-level insecureSkipTLSVerify, under the flags; the flags' certificate and key
// replace the script's pair, their CA file the script's CA file.
func TestTLSSettingsLayer(t *testing.T) {
	t.Parallel()
	pki, stranger := tlstest.New(t), tlstest.New(t)
	sim, err := mock.New(mock.WithSpeed(20))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	verifying, mutual := pki.Serve(t, sim.Handler(), false).URL, pki.Serve(t, sim.Handler(), true).URL
	yes, no := true, false
	clientCert := tlsclient.Files{CertFile: pki.CertFile, KeyFile: pki.KeyFile}
	for _, tt := range []struct {
		name    string
		url     string
		options map[string]any // the script's, beside iterations and thresholds
		flags   OmniOptions
		code    engine.ExitCode
	}{
		{"verifying by default", verifying, nil, OmniOptions{}, engine.ExitThresholdsFailed},
		{"k6's top-level option", verifying, map[string]any{"insecureSkipTLSVerify": true}, OmniOptions{}, engine.ExitOK},
		{"options.omni", verifying, map[string]any{"omni": map[string]any{"insecureSkipTLSVerify": true}}, OmniOptions{}, engine.ExitOK},
		{"the flag turns it off", verifying, map[string]any{"insecureSkipTLSVerify": true, "omni": map[string]any{"insecureSkipTLSVerify": true}},
			OmniOptions{InsecureSkipTLSVerify: &no}, engine.ExitThresholdsFailed},
		{"the flag turns it on", verifying, nil, OmniOptions{InsecureSkipTLSVerify: &yes}, engine.ExitOK},
		{"options.omni.tls", mutual, map[string]any{"omni": map[string]any{"tls": map[string]any{
			"caFile": pki.CAFile, "certFile": pki.CertFile, "keyFile": pki.KeyFile}}}, OmniOptions{}, engine.ExitOK},
		{"the flags' pair beside the script's CA file", mutual, map[string]any{"omni": map[string]any{"tls": map[string]any{"caFile": pki.CAFile}}},
			OmniOptions{TLS: clientCert}, engine.ExitOK},
		{"the flags' pair over the script's", mutual, map[string]any{"omni": map[string]any{"tls": map[string]any{
			"caFile": pki.CAFile, "certFile": stranger.CertFile, "keyFile": stranger.KeyFile}}}, OmniOptions{TLS: clientCert}, engine.ExitOK},
		{"the flags' CA file over the script's", mutual, map[string]any{"omni": map[string]any{"tls": map[string]any{
			"caFile": stranger.CAFile, "certFile": pki.CertFile, "keyFile": pki.KeyFile}}}, OmniOptions{TLS: tlsclient.Files{CAFile: pki.CAFile}}, engine.ExitOK},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.flags.BaseURL = tt.url
			code, out := runTLS(t, tt.options, tt.flags)
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s", code, tt.code, out)
			}
			if tt.code != engine.ExitOK && !strings.Contains(out, "tls") {
				t.Errorf("the failures are not tls ones:\n%s", out)
			}
		})
	}
}

// A TLS setting that cannot be used stops the run before it starts, as invalid options
// do, naming the file or the option.
func TestBadTLSSettingsAreInvalidOptions(t *testing.T) {
	t.Parallel()
	pki := tlstest.New(t)
	for _, tt := range []struct {
		name    string
		options map[string]any
		flags   OmniOptions
		want    string
	}{
		{"the flags' missing CA file", nil, OmniOptions{TLS: tlsclient.Files{CAFile: "none.pem"}}, `TLS CA file "none.pem": no such file or directory`},
		{"the script's certificate without its key", map[string]any{"omni": map[string]any{"tls": map[string]any{"certFile": pki.CertFile}}},
			OmniOptions{}, `TLS client certificate "` + pki.CertFile + `" has no key`},
		{"a top-level option that is not a boolean", map[string]any{"insecureSkipTLSVerify": "yes"}, OmniOptions{},
			`option "insecureSkipTLSVerify": want true or false, got "yes"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Load(tlsOptions(t, tt.options, tt.flags))
			if code := engine.ExitCodeOf(err); code != engine.ExitInvalidConfig || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load: exit %d, %v; want %d and %q", code, err, engine.ExitInvalidConfig, tt.want)
			}
		})
	}
}

// tlsOptions runs tlsScript once with the script options given, flags over them.
func tlsOptions(t *testing.T, options map[string]any, flags OmniOptions) Options {
	t.Helper()
	opts := map[string]any{"iterations": 1, "thresholds": map[string]any{
		"requests_failed": []string{"rate == 0"}, "http_req_failed": []string{"rate == 0"}}}
	for k, v := range options {
		opts[k] = v
	}
	raw, err := json.Marshal(opts)
	if err != nil {
		t.Fatal(err)
	}
	return Options{Script: Script{Name: "tls.js", Source: []byte(tlsScript), Options: raw}, Omni: flags, Quiet: true}
}

// runTLS runs tlsScript and returns its exit code and summary.
func runTLS(t *testing.T, options map[string]any, flags OmniOptions) (engine.ExitCode, string) {
	t.Helper()
	var out strings.Builder
	o := tlsOptions(t, options, flags)
	o.Stdout = &out
	test, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	defer test.Close()
	code, err := test.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return code, out.String()
}
