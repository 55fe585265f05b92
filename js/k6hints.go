package js

import (
	"errors"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// builtinNames lists the modules scripts import by name, for messages.
const builtinNames = "omnik, omnik/http, omnik/metrics, omnik/execution, omnik/data, omnik/summary and omni"

// k6Equivalents maps k6's modules to omnik's, for users bringing k6 habits.
var k6Equivalents = map[string]string{
	"k6":           `"omnik" (check, group, sleep, fail, randomSeed, textSummary)`,
	"k6/http":      `"omnik/http" (get, post, put, patch, del, head, request, asyncRequest)`,
	"k6/metrics":   `"omnik/metrics" (Counter, Gauge, Rate, Trend)`,
	"k6/execution": `"omnik/execution"`,
	"k6/data":      `"omnik/data" (SharedArray)`,
	"k6/timers":    "the globals setTimeout, setInterval, clearTimeout and clearInterval (no import)",
	"k6/encoding":  "the globals TextEncoder and TextDecoder (omni calls base64-encode binary bodies in Go)",
	"k6/ws":        `"omni": omni.audio.stream runs vLLM-Omni's speech websocket (there is no general websocket module)`,
}

// k6Hints turns imports that only k6 resolves (k6/*, jslib.k6.io, any URL) into one
// error that names what to use instead, where esbuild would only say it cannot resolve
// them.
var k6Hints = api.Plugin{Name: "k6-hints", Setup: func(b api.PluginBuild) {
	b.OnResolve(api.OnResolveOptions{Filter: `^(k6(/.*)?|https?://.*)$`}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
		return api.OnResolveResult{}, errors.New(k6Hint(a.Path))
	})
}}

func k6Hint(path string) string {
	prefix := "cannot import " + `"` + path + `": `
	switch {
	case strings.Contains(path, "jslib.k6.io/k6-summary"):
		return prefix + `use import { textSummary } from "omnik/summary" (also exported by "omnik")`
	case strings.HasPrefix(path, "http://") || strings.HasPrefix(path, "https://"):
		return prefix + "omnik does not fetch modules from the network; save the file next to your script and import it with a relative path like './lib.js'"
	}
	if use, ok := k6Equivalents[path]; ok {
		return prefix + "omnik is not k6; use " + use
	}
	if strings.HasPrefix(path, "k6/experimental/websockets") || strings.HasPrefix(path, "k6/websockets") {
		return prefix + "omnik is not k6; use " + k6Equivalents["k6/ws"]
	}
	return prefix + "omnik is not k6 and has no equivalent of this module; built-in modules are " + builtinNames
}
