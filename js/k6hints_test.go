package js

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestK6ImportsNameTheOmnikModuleToUse(t *testing.T) {
	t.Parallel()
	tests := []struct{ spec, want string }{
		{"k6/http", `s.js:1:18: cannot import "k6/http": omnik is not k6; use "omnik/http"`},
		{"k6", `use "omnik" (check, group`},
		{"k6/metrics", `use "omnik/metrics"`},
		{"k6/execution", `use "omnik/execution"`},
		{"k6/data", `use "omnik/data"`},
		{"k6/timers", "the globals setTimeout"},
		{"k6/experimental/websockets", "omni.audio.stream"},
		{"k6/crypto", "no equivalent of this module; built-in modules are omnik, omnik/http"},
		{"https://jslib.k6.io/k6-summary/0.0.2/index.js", `import { textSummary } from "omnik/summary"`},
		{"https://jslib.k6.io/k6-utils/1.4.0/index.js", "does not fetch modules from the network"},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "s.js")
			src := "import http from '" + tc.spec + "';\nexport default function () {}\n"
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(path)
			var se *ScriptError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Load = %v, want a ScriptError containing %q", err, tc.want)
			}
		})
	}
}
