package js

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// nativeModule offers test calls that run in Go off the JS goroutine.
func nativeModule(cancelled *atomic.Int32) Module {
	return func(vu *VU) (*Exports, error) {
		return &Exports{Named: map[string]any{
			// delay(ms, value) resolves with value after ms, in Go.
			"delay": func(ms float64, v string) any {
				return vu.Promise(func(ctx context.Context) Settle {
					select {
					case <-time.After(time.Duration(ms * float64(time.Millisecond))):
						return func() (any, error) { return v, nil }
					case <-ctx.Done():
						cancelled.Add(1)
						return func() (any, error) { return nil, ctx.Err() }
					}
				})
			},
			"failing": func(msg string) any {
				return vu.Promise(func(context.Context) Settle {
					return func() (any, error) { return nil, errors.New(msg) }
				})
			},
		}}, nil
	}
}

func runScript(t *testing.T, src string, ctx context.Context) (*VU, error) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "s.js")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var cancelled atomic.Int32
	r, err := Load(path, WithModule("omnik/native", nativeModule(&cancelled)))
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	vu, err := r.NewVU(context.Background(), 1)
	if err != nil {
		t.Fatalf("new VU: %v", err)
	}
	return vu, vu.RunIteration(ctx, &Iteration{Scenario: &Scenario{Name: "s"}})
}

func TestAsync(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		src     string
		wantErr string // "" for success
		check   string // global that must be "ok"
	}{
		{"promise all of native calls", `import {delay} from 'omnik/native';
export default async function () {
  const r = await Promise.all([delay(20, 'a'), delay(10, 'b'), delay(5, 'c')]);
  globalThis.ok = r.join('') === 'abc' ? 'ok' : r.join('');
}`, "", "ok"},
		{"iteration waits for work it did not await", `import {delay} from 'omnik/native';
export default function () {
  delay(20, 'x').then((v) => { globalThis.ok = v === 'x' ? 'ok' : v; });
}`, "", "ok"},
		{"timers fire in order and clear", `export default function () {
  const seen = [];
  setTimeout(() => seen.push(2), 10);
  setTimeout(() => seen.push(1), 1);
  const t = setTimeout(() => seen.push('never'), 5); clearTimeout(t);
  let n = 0; const iv = setInterval(() => { if (++n === 3) { clearInterval(iv); globalThis.ok = seen.join(',') === '1,2' && n === 3 ? 'ok' : seen.join(','); } }, 4);
}`, "", "ok"},
		{"sleep does not freeze due callbacks", `import { sleep } from 'omnik';
export default function () {
  let fired = false;
  setTimeout(() => { fired = true; }, 1);
  sleep(0.03);
  globalThis.ok = fired ? 'ok' : 'frozen';
}`, "", "ok"},
		{"native rejection is catchable", `import {failing} from 'omnik/native';
export default async function () {
  try { await failing('nope'); } catch (e) { globalThis.ok = String(e).includes('nope') ? 'ok' : String(e); }
}`, "", "ok"},
		{"unhandled rejection fails the iteration", `export default function () {
  Promise.reject(new Error('lost promise'));
}`, "unhandled promise rejection", ""},
		{"rejected async default fails the iteration", `export default async function () {
  throw new Error('async boom');
}`, "async boom", ""},
		{"exception in timer fails the iteration", `export default function () {
  setTimeout(() => { throw new Error('timer boom'); }, 1);
}`, "timer boom", ""},
		{"open in VU code names the call and context", `export default function () { open('x'); }`,
			"open() can only be called in init", ""},
		{"metric constructor in VU code", `import { Trend } from 'omnik/metrics';
export default function () { new Trend('late'); }`, "new Trend() can only be called in init", ""},
		{"async check predicate is rejected", `import { check } from 'omnik';
export default function () { check(1, { a: async () => true }); }`, "async predicates are not supported", ""},
		{"TextEncoder round trip", `export default function () {
  const b = new TextEncoder().encode('héllo');
  globalThis.ok = b.length === 6 && new TextDecoder().decode(b) === 'héllo' ? 'ok' : String(b.length);
}`, "", "ok"},
		{"TextDecoder of a plain object is a TypeError, not a crash", `export default function () {
  new TextDecoder().decode({ a: 1 });
}`, "expected an ArrayBuffer", ""},
		{"TextDecoder of a view past its buffer is a TypeError", `export default function () {
  new TextDecoder().decode({ buffer: new ArrayBuffer(4), byteOffset: 2, byteLength: 10 });
}`, "expected an ArrayBuffer", ""},
		{"TextDecoder of a subarray reads only it", `export default function () {
  const b = new TextEncoder().encode('héllo');
  globalThis.ok = new TextDecoder().decode(b.subarray(3)) === 'llo' ? 'ok' : 'no';
}`, "", "ok"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			vu, err := runScript(t, tc.src, context.Background())
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(Exception(err), tc.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("iteration: %v", Exception(err))
			}
			if got := vu.rt.Get(tc.check); got == nil || got.String() != "ok" {
				t.Errorf("%s = %v", tc.check, got)
			}
		})
	}
}

func TestInitOnlyCallsInInitAndVUCallsInInitFail(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ src, want string }{
		{`import { check } from 'omnik'; check(1, {a: true}); export default function () {}`, "check() can only be called in VU"},
		{`import { sleep } from 'omnik'; sleep(1); export default function () {}`, "sleep() can only be called in VU"},
		{`import x from 'nope'; export default function () {}`, `s.js:1:15: Could not resolve "nope"`},
		{`import x from 'omnik/nope'; export default function () {}`, `unknown module "omnik/nope"`},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "s.js")
		_ = os.WriteFile(path, []byte(tc.src), 0o644)
		_, err := Load(path)
		var se *ScriptError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(%q) = %v, want ScriptError with %q", tc.src, err, tc.want)
		}
	}
}

func TestInterruptCancelsInFlightGoWork(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "s.js")
	_ = os.WriteFile(path, []byte(`import {delay} from 'omnik/native';
export default async function () { await delay(10000, 'late'); }`), 0o644)
	var cancelled atomic.Int32
	r, err := Load(path, WithModule("omnik/native", nativeModule(&cancelled)))
	if err != nil {
		t.Fatal(err)
	}
	vu, _ := r.NewVU(context.Background(), 1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = vu.RunIteration(ctx, &Iteration{Scenario: &Scenario{Name: "s"}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	if time.Since(start) > 5*time.Second || cancelled.Load() != 1 {
		t.Fatalf("in-flight work not cancelled (took %s, cancelled=%d)", time.Since(start), cancelled.Load())
	}
	// The VU stays usable after an interrupt.
	_ = os.WriteFile(path, nil, 0o644)
	err = vu.RunIteration(context.Background(), &Iteration{Scenario: &Scenario{Name: "s", Exec: "missing"}})
	if err == nil || !strings.Contains(err.Error(), `"missing" is not exported`) {
		t.Fatalf("second iteration err = %v", err)
	}
}

func TestModuleExtensionAddsNamedExports(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "s.js")
	_ = os.WriteFile(path, []byte(`import { SharedArray, answer } from 'omnik/data';
const a = new SharedArray('a', () => [1, 2]);
globalThis.ok = answer() === 42 && a.length === 2 ? 'ok' : 'bad';
export default function () {}`), 0o644)
	ext := func(vu *VU) (*Exports, error) {
		return &Exports{Named: map[string]any{"answer": func() int { return 42 }}}, nil
	}
	r, err := Load(path, WithModuleExtension("omnik/data", ext))
	if err != nil {
		t.Fatal(err)
	}
	vu, err := r.NewVU(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := vu.rt.Get("ok").String(); got != "ok" {
		t.Errorf("ok = %q", got)
	}
}
