package js

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// newTestVU loads src with env and makes VU 1 (init code run, no iteration).
func newTestVU(t *testing.T, src string, env map[string]string) *VU {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.js")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return newTestVUFile(t, path, WithEnv(env))
}

// newTestVUFile is VU 1 of the script at path.
func newTestVUFile(t *testing.T, path string, opts ...Option) *VU {
	t.Helper()
	r, err := Load(path, opts...)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	vu, err := r.NewVU(context.Background(), 1)
	if err != nil {
		t.Fatalf("new VU: %v", err)
	}
	return vu
}

// built lists the entries of a lazy object that have their JavaScript value.
func built(t *testing.T, vu *VU, v any) map[string]bool {
	t.Helper()
	l, ok := v.(*lazyObject)
	if !ok {
		t.Fatalf("%T is not a lazy object", v)
	}
	out := map[string]bool{}
	for _, e := range l.entries {
		if e.val != nil {
			out[e.key] = true
		}
	}
	return out
}

func TestGlobalHelpersAreBuiltOnlyWhenAScriptUsesThem(t *testing.T) {
	t.Parallel()
	vu := newTestVU(t, `export default function () {}
globalThis.ok = typeof setTimeout === 'function' && typeof console.log === 'function' &&
  new TextEncoder().encode('hé').length === 3 && 'open' in globalThis;`, nil)
	if got := vu.rt.Get("ok"); got == nil || !got.ToBoolean() {
		t.Fatalf("the helpers do not work: ok = %v", got)
	}
	got := built(t, vu, vu.rt.GlobalObject().Prototype().Export())
	for name, want := range map[string]bool{"setTimeout": true, "console": true, "TextEncoder": true,
		"setInterval": false, "clearTimeout": false, "TextDecoder": false, "open": false} {
		if got[name] != want {
			t.Errorf("%s built = %v, want %v", name, got[name], want)
		}
	}
	if got := built(t, vu, vu.rt.Get("console").Export()); len(got) != 1 || !got["log"] {
		t.Errorf("console's built functions = %v, want only log", got)
	}
}

func TestEnvIsReadWrittenDeletedAndListedLikeAnObject(t *testing.T) {
	t.Parallel()
	vu := newTestVU(t, `export default function () {}
const before = JSON.stringify(__ENV);
__ENV.B = 'changed'; __ENV.C = 3; delete __ENV.A;
globalThis.ok = [before, JSON.stringify(__ENV), 'A' in __ENV, 'B' in __ENV, __ENV.C === 3].join(' ');`,
		map[string]string{"B": "2", "A": "1"})
	want := `{"A":"1","B":"2"} {"B":"changed","C":3} false true true`
	if got := vu.rt.Get("ok").String(); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	// Another VU of the run still sees the run's env.
	other, err := vu.runner.NewVU(context.Background(), 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := other.rt.Get("ok").String(); got != want {
		t.Fatalf("VU 2: got %s", got)
	}
}

func TestModuleExportsAreBuiltOnFirstReadWhicheverWayTheyAreImported(t *testing.T) {
	t.Parallel()
	vu := newTestVU(t, `import omnik from 'omnik';
import * as ns from 'omnik';
import { check } from 'omnik';
export default function () {}
globalThis.ok = [typeof omnik.sleep, typeof ns.group, typeof check, Object.keys(omnik).join(',')].join(' ');`, nil)
	want := "function function function check,fail,group,randomSeed,sleep,textSummary"
	if got := vu.rt.Get("ok").String(); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	// esbuild's interop reads every own property of the module object (its descriptor),
	// so the named exports are built at import; the default object builds on first read.
	if got := built(t, vu, vu.modules["omnik"].Get("default").Export()); !got["sleep"] || len(got) != 1 {
		t.Errorf("built entries of the default export = %v, want sleep only", got)
	}
}

// A module's named exports are own properties of its namespace: a file that re-exports
// it, a spread and Object.keys see every one.
func TestModuleNamespacesListTheirExports(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"s.js": `import * as ns from 'omnik';
import { sleep, group } from './lib.js';
export default function () {}
globalThis.ok = [typeof sleep, typeof group, Object.keys(ns).filter((k) => !k.startsWith('__') && k !== 'default').join(','),
  Object.keys({ ...ns }).includes('check'), Object.prototype.hasOwnProperty.call(ns, 'fail')].join(' ');`,
		"lib.js": "export * from 'omnik';\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	vu := newTestVUFile(t, filepath.Join(dir, "s.js"))
	want := "function function check,fail,group,randomSeed,sleep,textSummary true true"
	if got := vu.rt.Get("ok").String(); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestBundleInteropHelpersDoNotLoopWithInOrOf(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "s.js")
	src := "import omni from 'omni';\nimport lib from './lib.cjs';\nexport const options = {};\nexport default function () {}\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "lib.cjs"), []byte("module.exports = {};\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, err := bundle(path, []string{path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, helper := range []string{"var __export = ", "var __copyProps = "} {
		if !strings.Contains(code, helper) {
			t.Fatalf("the bundle has no %q: esbuild's output changed\n%s", helper, code)
		}
	}
	if strings.Contains(code, " in all)") || strings.Contains(code, "for (let key of") {
		t.Errorf("esbuild's helpers changed and cheapInterop no longer rewrites their loops:\n%s", code)
	}
}

func TestInteropCopiesEveryExportOfAModule(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "s.js")
	src := `import lib from './lib.cjs';
import * as ns from './lib.cjs';
import { b } from './esm.js';
import * as esm from './esm.js';
export const options = {};
export function setup() {}
export default function () {}
globalThis.ok = [lib.a, lib.b, ns.a, ns.b, b, esm.a, esm.b, Object.keys(esm).join('')].join(' ');
`
	files := map[string]string{
		"s.js":    src,
		"lib.cjs": "module.exports = { a: 1, b: 2 };\n",
		"esm.js":  "export const a = 'x';\nexport let b = 'y';\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(r.Exports(), ","), "default,setup"; got != want {
		t.Errorf("exports = %s, want %s", got, want)
	}
	vu, err := r.NewVU(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := vu.rt.Get("ok").String(), "1 2 1 2 y x y ab"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
