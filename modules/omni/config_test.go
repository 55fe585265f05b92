package omni

import (
	"strings"
	"testing"
)

// The limits of options.omni reach the client; a negative one, or one past 1 GiB, is
// refused with its key's name.
func TestConfigLimits(t *testing.T) {
	cfg, err := ParseConfig([]byte(`{"maxEventBytes":10,"maxBodyBytes":20,"maxTextBytes":30,"maxChunks":40}`))
	if l := cfg.limits(); err != nil || l.Event != 10 || l.Body != 20 || l.Text != 30 || l.Chunks != 40 {
		t.Fatalf("limits %+v, %v", l, err)
	}
	for _, raw := range []string{`{"maxChunks":-1}`, `{"maxBodyBytes":-5}`, `{"maxEventBytes":2147483647}`} {
		if _, err := ParseConfig([]byte(raw)); err == nil || !strings.Contains(err.Error(), "is not between 0 (the default) and 1073741824") {
			t.Errorf("%s: %v", raw, err)
		}
	}
}
