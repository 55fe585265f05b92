package chromium

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// fixture writes an HTML fixture into a fresh temporary directory.
func fixture(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(path, []byte("<!doctype html><html><head><meta charset=utf-8></head><body style=\"margin:0;background:#fff\">"+body+"</body></html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// waitErrors waits until Errors has an entry containing each of want. The
// browser sends network events from another process than console events, so
// one can trail the page's ready flag a little. The bound is generous, and
// is no claim about speed.
func waitErrors(t *testing.T, p *Page, want ...string) []string {
	t.Helper()
	deadline := time.Now().Add(DefaultTimeout)
	for {
		errs := p.Errors()
		missing := slices.DeleteFunc(slices.Clone(want), func(w string) bool {
			return slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, w) })
		})
		if len(missing) == 0 {
			return errs
		}
		if time.Now().After(deadline) {
			t.Fatalf("Errors() lacks %q; it has:\n\t%s", missing, strings.Join(errs, "\n\t"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestCanvasRendersWithoutErrors(t *testing.T) {
	p := Open(t, fixture(t, `
<canvas id="c" class="plot" width="600" height="300"></canvas>
<div class="plot"><svg width="200" height="100"><rect x="10" y="10" width="80" height="40" fill="#36c"/></svg></div>
<script>
const g = document.getElementById("c").getContext("2d");
for (let i = 0; i < 20; i++) {
	g.fillStyle = "hsl(" + i * 18 + ", 80%, 50%)";
	g.fillRect(i * 30, 300 - i * 12, 28, i * 12);
}
window.ready = true;
</script>`), WindowSize(1000, 700))
	p.WaitFor("window.ready === true", 0)
	if errs := p.Errors(); len(errs) > 0 {
		t.Errorf("Errors() = %q, want none", errs)
	}
	if bad := p.Unrendered(".plot"); len(bad) > 0 {
		t.Errorf("Unrendered(.plot) = %q, want none", bad)
	}
	var width int
	p.Eval("Promise.resolve(window.innerWidth)", &width)
	if width != 1000 {
		t.Errorf("innerWidth = %d, want the window size's 1000", width)
	}
	img := p.Screenshot()
	if w := img.Bounds().Dx(); w != 1000 {
		t.Errorf("screenshot is %d px wide, want 1000", w)
	}
	colors, ink := NotBlank(img)
	if colors < 10 || ink < 0.02 {
		t.Errorf("NotBlank = %d colours, %.4f non-background, want >= 10 and >= 0.02", colors, ink)
	}

	// After Close none of the browser's processes may be left.
	if n := len(leftovers(p.pid, p.dataDir)); n < 2 && runtime.GOOS == "linux" {
		t.Fatalf("found %d live browser processes, want the browser and its helpers", n)
	}
	p.Close()
	if left := leftovers(p.pid, p.dataDir); len(left) > 0 {
		t.Errorf("browser processes %v still run after Close", left)
	}
}

func TestConsoleErrorAndException(t *testing.T) {
	p := Open(t, fixture(t, `<script>
setTimeout(() => { window.ready = true; }, 0);
console.error("x");
throw new Error("boom");
</script>`))
	p.WaitFor("window.ready", 0)
	errs := waitErrors(t, p, "console.error: x", "exception: Uncaught Error: boom")
	if i, j := slices.IndexFunc(errs, func(e string) bool { return strings.HasPrefix(e, "console.error") }),
		slices.IndexFunc(errs, func(e string) bool { return strings.HasPrefix(e, "exception") }); i > j {
		t.Errorf("Errors() = %q: the console error came first in the page", errs)
	}
}

func TestNetworkIsBlocked(t *testing.T) {
	p := Open(t, fixture(t, `
<img src="https://example.com/logo.png">
<script>
window.fetched = fetch("http://example.com/").then(() => "loaded", (e) => "refused: " + e);
</script>`))
	var fetched string
	p.Eval("window.fetched", &fetched)
	if !strings.HasPrefix(fetched, "refused") {
		t.Errorf("fetch gave %q, want it refused", fetched)
	}
	waitErrors(t, p, "request blocked (inspector): http://example.com/", "request blocked (inspector): https://example.com/logo.png")
}

func TestBlankPage(t *testing.T) {
	p := Open(t, fixture(t, `<div class="plot" id="nothing"></div><canvas class="plot"></canvas>`))
	if bad := p.Unrendered(".plot"); !slices.Equal(bad, []string{"div#nothing.plot", "canvas.plot"}) {
		t.Errorf("Unrendered(.plot) = %q, want both plots", bad)
	}
	if bad := p.Unrendered(".missing"); !slices.Equal(bad, []string{"no element matches .missing"}) {
		t.Errorf("Unrendered(.missing) = %q", bad)
	}
	if colors, ink := NotBlank(p.Screenshot()); colors != 1 || ink != 0 {
		t.Errorf("NotBlank = %d colours, %.4f non-background, want 1 and 0 for a white page", colors, ink)
	}
	if errs := p.Errors(); len(errs) > 0 {
		t.Errorf("Errors() = %q, want none", errs)
	}
}

// fakeTB records what Open does when no browser is found. Its Skip and
// Fatalf end the goroutine, as the real ones do.
type fakeTB struct {
	testing.TB
	skipped, failed string
}

func (f *fakeTB) Helper()                   {}
func (f *fakeTB) Skip(args ...any)          { f.skipped = fmt.Sprint(args...); runtime.Goexit() }
func (f *fakeTB) Fatalf(s string, a ...any) { f.failed = fmt.Sprintf(s, a...); runtime.Goexit() }

// run calls f in a goroutine of its own, so that fakeTB's Goexit ends only
// that goroutine, and waits for it.
func run(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	<-done
}

func TestWaitForTimeoutReportsPageErrors(t *testing.T) {
	f := &fakeTB{TB: t}
	run(func() {
		p := Open(f, fixture(t, `<script>console.error("y")</script>`))
		// The expression is never true, so the short timeout decides
		// nothing about speed.
		p.WaitFor("window.never === true", 100*time.Millisecond)
		t.Error("WaitFor returned for an expression that is never true")
	})
	if !strings.Contains(f.failed, "still not true") || !strings.Contains(f.failed, "console.error: y") {
		t.Errorf("WaitFor failed with %q, want the timeout and the page's console error", f.failed)
	}
}

// openWithout runs Open as if no browser were installed.
func openWithout(t *testing.T, require string) *fakeTB {
	saved := candidates
	t.Cleanup(func() { candidates = saved })
	candidates = []string{filepath.Join(t.TempDir(), "no-chromium")}
	t.Setenv("PATH", t.TempDir())
	t.Setenv(EnvBrowser, "")
	t.Setenv(EnvRequire, require)
	f := &fakeTB{TB: t}
	run(func() {
		Open(f, "page.html")
		t.Error("Open returned without a browser")
	})
	return f
}

func TestNoBrowserSkips(t *testing.T) {
	f := openWithout(t, "")
	if f.skipped != "skipped: no chromium (install: apt-get install -y chromium)" || f.failed != "" {
		t.Errorf("skipped %q, failed %q; want the one-line skip", f.skipped, f.failed)
	}
}

func TestNoBrowserFailsWhenRequired(t *testing.T) {
	f := openWithout(t, "1")
	if f.skipped != "" || !strings.Contains(f.failed, EnvRequire) || !strings.Contains(f.failed, "apt-get install -y chromium") {
		t.Errorf("skipped %q, failed %q; want a failure naming %s and the install", f.skipped, f.failed, EnvRequire)
	}
}

func TestFindHonoursEnv(t *testing.T) {
	t.Setenv(EnvBrowser, filepath.Join(t.TempDir(), "absent"))
	if path, err := Find(); err == nil {
		t.Errorf("Find() = %q with %s naming no file, want an error", path, EnvBrowser)
	}
}
