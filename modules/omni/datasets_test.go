package omni

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omnik-dev/omnik/js"
	"github.com/omnik-dev/omnik/metrics"
)

// loadDataScript loads src with omnik/data's dataset() from mod.
func loadDataScript(t *testing.T, mod *Module, src string) (*js.Runner, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.js")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return js.Load(path, js.WithRegistry(metrics.NewRegistry()), js.WithModule("omni", mod.JS()),
		js.WithModuleExtension("omnik/data", mod.DataExtension()))
}

// dataset() in init code loads once per spec and every VU sees the same samples in the
// same (seeded) order; the array is read-only.
func TestDatasetSharedAcrossVUs(t *testing.T) {
	t.Parallel()
	mod := New()
	t.Cleanup(mod.Close)
	r, err := loadDataScript(t, mod, `import { dataset } from 'omnik/data';
const spec = { name: 'random', numPrompts: 5, randomInputLen: 16, randomOutputLen: 4, seed: 3 };
const a = dataset(spec);
const b = dataset(spec);
a[0] = 'overwritten';
globalThis.prompts = JSON.stringify(Array.from({ length: a.length }, (_, i) => a[i].prompt));
globalThis.sameInVU = a.length === b.length && a[4].prompt === b[4].prompt;
globalThis.first = typeof a[0] === 'object' ? 'object' : String(a[0]);
globalThis.outputTokens = a[0].outputTokens;
globalThis.past = String(a[5]);
export default function () {}
`)
	if err != nil {
		t.Fatal(js.Exception(err))
	}
	var prompts []string
	for id := uint64(1); id <= 2; id++ {
		vu, err := r.NewVU(context.Background(), id)
		if err != nil {
			t.Fatal(js.Exception(err))
		}
		rt := vu.Runtime()
		prompts = append(prompts, rt.Get("prompts").String())
		for name, want := range map[string]string{"sameInVU": "true", "first": "object", "outputTokens": "4", "past": "undefined"} {
			if got := rt.Get(name).String(); got != want {
				t.Errorf("VU %d: %s = %s, want %s", id, name, got, want)
			}
		}
	}
	if prompts[0] != prompts[1] {
		t.Errorf("VUs see different samples:\n%s\n%s", prompts[0], prompts[1])
	}
	if !strings.Contains(prompts[0], `","`) || len(prompts[0]) < 5*16 {
		t.Errorf("prompts = %s, want 5 prompts of ~16 tokens", prompts[0])
	}
	mod.datasets.mu.Lock()
	n := len(mod.datasets.bySpec)
	mod.datasets.mu.Unlock()
	if n != 1 {
		t.Errorf("%d datasets loaded for one spec in init and two VUs, want 1", n)
	}
}

// Another seed is another order of the same generator: the loader keys by the whole spec.
func TestDatasetSeedChangesSamples(t *testing.T) {
	t.Parallel()
	mod := New()
	t.Cleanup(mod.Close)
	r, err := loadDataScript(t, mod, `import { dataset } from 'omnik/data';
const a = dataset({ name: 'random', numPrompts: 3, randomInputLen: 8, randomOutputLen: 2, seed: 1 });
const b = dataset({ name: 'random', numPrompts: 3, randomInputLen: 8, randomOutputLen: 2, seed: 2 });
globalThis.differ = a[0].prompt !== b[0].prompt || a[1].prompt !== b[1].prompt;
export default function () {}
`)
	if err != nil {
		t.Fatal(js.Exception(err))
	}
	vu, err := r.NewVU(context.Background(), 1)
	if err != nil {
		t.Fatal(js.Exception(err))
	}
	if !vu.Runtime().Get("differ").ToBoolean() {
		t.Error("seeds 1 and 2 gave the same prompts")
	}
	mod.datasets.mu.Lock()
	defer mod.datasets.mu.Unlock()
	if n := len(mod.datasets.bySpec); n != 2 {
		t.Errorf("%d datasets loaded for two specs, want 2", n)
	}
}

// dataset() belongs to init code: from a VU it throws, naming the call and the context.
func TestDatasetInVUCodeThrows(t *testing.T) {
	t.Parallel()
	mod := New()
	t.Cleanup(mod.Close)
	r, err := loadDataScript(t, mod, `import { dataset } from 'omnik/data';
export default function () {
  try {
    dataset({ name: 'random', numPrompts: 1 });
    globalThis.err = 'no error';
  } catch (e) {
    globalThis.err = String(e);
  }
}
`)
	if err != nil {
		t.Fatal(js.Exception(err))
	}
	vu, err := r.NewVU(context.Background(), 1)
	if err != nil {
		t.Fatal(js.Exception(err))
	}
	if err := vu.RunIteration(context.Background(), &js.Iteration{Scenario: &js.Scenario{Name: "s"}}); err != nil {
		t.Fatal(js.Exception(err))
	}
	got := vu.Runtime().Get("err").String()
	for _, want := range []string{"dataset()", "init"} {
		if !strings.Contains(got, want) {
			t.Errorf("error %q lacks %q", got, want)
		}
	}
}

// A spec with an unknown key, or a bad value, fails the init code with a clear message.
func TestDatasetRejectsBadSpecs(t *testing.T) {
	t.Parallel()
	const keys = "(keys: name, path, numPrompts, randomInputLen, randomOutputLen, randomRangeRatio, randomPrefixLen, sharegptOutputLen, customOutputLen, customOutputLenOverride, disableShuffle, mm, seed, calibrate)"
	for _, tc := range []struct {
		name, spec string
		want       []string
	}{
		{"unknown key", `{ name: 'random', numPromps: 3 }`, []string{`unknown field "numPromps"`, keys}},
		{"wrong type", `{ name: 'random', numPrompts: 'three' }`, []string{"numPrompts", keys}},
		{"unknown dataset", `{ name: 'nope' }`, []string{`--dataset-name "nope"`, "random, random-mm, sharegpt, custom"}},
		{"file dataset without path", `{ name: 'custom' }`, []string{"--dataset-path is required"}},
		{"missing file", `{ name: 'sharegpt', path: '/nonexistent/sg.json' }`, []string{"/nonexistent/sg.json", "no such file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mod := New()
			t.Cleanup(mod.Close)
			_, err := loadDataScript(t, mod, "import { dataset } from 'omnik/data';\nconst a = dataset("+tc.spec+");\nexport default function () {}\n")
			if err == nil {
				t.Fatal("the script loaded")
			}
			msg := js.Exception(err)
			for _, want := range tc.want {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q lacks %q", msg, want)
				}
			}
		})
	}
}
