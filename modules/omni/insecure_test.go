package omni

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/omnik-dev/omnik/mock"
)

// insecureSkipTLSVerify reaches a server with a self-signed certificate, which the
// default client refuses.
func TestInsecureSkipTLSVerifyAcceptsSelfSignedServers(t *testing.T) {
	t.Parallel()
	sim, err := mock.New()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewTLSServer(sim.Handler())
	t.Cleanup(srv.Close)
	for _, insecure := range []bool{false, true} {
		c := newTarget(Config{BaseURL: srv.URL, InsecureSkipTLSVerify: insecure})
		model, err := c.listModels()
		c.close()
		switch {
		case insecure && (err != nil || model == ""):
			t.Errorf("insecure: model %q, %v", model, err)
		case !insecure && (err == nil || !strings.Contains(err.Error(), "certificate")):
			t.Errorf("verifying: model %q, err %v, want a certificate error", model, err)
		}
	}
}
