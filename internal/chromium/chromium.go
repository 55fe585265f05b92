// Package chromium opens a local HTML file in a real headless Chromium for a
// Go test, offline, and lets the test read what the page did: console errors,
// uncaught exceptions, network requests it tried, JavaScript values and a
// screenshot.
//
// It is test support: a normal package so that the tests of other packages
// can import it. A test without a browser on the machine skips, unless
// OMNIK_REQUIRE_CHROMIUM=1 says the browser is mandatory (as in CI).
package chromium

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// Environment variables that steer Open.
const (
	// EnvBrowser names the browser binary, a path or a name on PATH.
	EnvBrowser = "OMNIK_CHROMIUM"
	// EnvRequire, set to 1, turns a missing browser into a test failure.
	EnvRequire = "OMNIK_REQUIRE_CHROMIUM"
)

// DefaultTimeout bounds each step of a Page (start, navigation, WaitFor, Eval,
// Screenshot). It is generous on purpose: a loaded 2-core CI machine can take
// many seconds to start a browser, and no test here measures speed.
const DefaultTimeout = 60 * time.Second

// candidates are the browser names tried on PATH when EnvBrowser is unset,
// then the Debian package's path for a PATH that lacks /usr/bin.
var candidates = []string{"chromium", "chromium-browser", "google-chrome", "/usr/bin/chromium"}

// Find returns the path of the browser to use: EnvBrowser if set, else the
// first of chromium, chromium-browser, google-chrome on PATH, else
// /usr/bin/chromium.
func Find() (string, error) {
	if name := os.Getenv(EnvBrowser); name != "" {
		path, err := exec.LookPath(name)
		if err != nil {
			return "", fmt.Errorf("%s=%s: %w", EnvBrowser, name, err)
		}
		return path, nil
	}
	for _, name := range candidates {
		if path, err := exec.LookPath(name); err == nil {
			return path, nil
		}
	}
	return "", errors.New("no chromium, chromium-browser or google-chrome found")
}

type config struct {
	width, height int
	timeout       time.Duration
}

// Option changes how Open starts the browser.
type Option func(*config)

// WindowSize sets the browser window, and so the viewport, in CSS pixels.
// The default is 1400x900.
func WindowSize(width, height int) Option {
	return func(c *config) { c.width, c.height = width, height }
}

// Timeout sets the bound of each step in place of DefaultTimeout.
func Timeout(d time.Duration) Option {
	return func(c *config) { c.timeout = d }
}

// Page is one HTML file open in its own browser process.
type Page struct {
	t       testing.TB
	ctx     context.Context // the tab; cancelling it kills the browser
	timeout time.Duration
	dataDir string
	pid     int // the browser's, which leads its process group
	close   func()
	once    sync.Once

	mu   sync.Mutex
	errs []string
	urls map[network.RequestID]string
}

// blocked are the URL patterns the browser refuses to load: a self-contained
// page must not reach the network, and CI has none anyway. This Chromium
// does not apply the list to WebSockets; the host resolver rule in Open
// stops those.
var blocked = []string{"http://*:*/*", "https://*:*/*", "ws://*:*/*", "wss://*:*/*", "ftp://*:*/*"}

// Open starts a headless browser with a fresh profile, navigates it to the
// local file path and waits for the load event. Every request other than a
// local one is blocked and recorded in Errors. Close runs at t.Cleanup.
//
// Without a browser, the test skips, or fails when EnvRequire is 1 or
// EnvBrowser names a browser that is not there.
func Open(t testing.TB, path string, opts ...Option) *Page {
	t.Helper()
	exe, err := Find()
	if err != nil {
		switch {
		case os.Getenv(EnvBrowser) != "": // asked for by name, so not optional
			t.Fatalf("chromium: %v", err)
		case os.Getenv(EnvRequire) == "1":
			t.Fatalf("chromium: %v, and %s=1 makes browser tests mandatory (install: apt-get install -y chromium)", err, EnvRequire)
		}
		t.Skip("skipped: no chromium (install: apt-get install -y chromium)")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	cfg := config{width: 1400, height: 900, timeout: DefaultTimeout}
	for _, o := range opts {
		o(&cfg)
	}

	p := &Page{t: t, timeout: cfg.timeout, dataDir: t.TempDir(), urls: map[network.RequestID]string{}}
	// The browser's own temporary files (its singleton socket, shared
	// memory) go to a short directory of their own: a socket path has a
	// length limit that a long test name in t.TempDir could break.
	tmp, err := os.MkdirTemp("", "omnik-chromium-")
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	home := filepath.Join(p.dataDir, "home") // nothing lands in the real $HOME
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(filepath.Join(p.dataDir, "profile")),
		chromedp.Env("TMPDIR="+tmp, "HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_CACHE_HOME="+home),
		chromedp.WindowSize(cfg.width, cfg.height),
		chromedp.NoSandbox, // CI runs as root, where the sandbox cannot start
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		// A second wall behind the blocked URLs, and the only one for
		// WebSockets: no host name or address resolves, so a request that
		// slipped through fails at once, and Errors reports it.
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"),
		chromedp.ModifyCmdFunc(procAttr),
	)...)
	ctx, cancelTab := chromedp.NewContext(allocCtx, chromedp.WithListener(p.listen))
	p.ctx = ctx
	p.close = func() {
		cancelTab()
		cancelAlloc() // kills the browser and waits for it to exit
		killLeftovers(p.pid, p.dataDir)
		os.RemoveAll(tmp)
	}
	// Registered after t.TempDir, so it runs first: the profile directory is
	// removed only when no browser process writes to it any more.
	t.Cleanup(p.Close)

	p.start(cfg.timeout)
	p.do("block the network", cfg.timeout, func(ctx context.Context) error {
		patterns := make([]*network.BlockPattern, len(blocked))
		for i, u := range blocked {
			patterns[i] = &network.BlockPattern{URLPattern: u, Block: true}
		}
		_, err := chromedp.Call(ctx, network.SetBlockedURLs, network.SetBlockedURLsParams{URLPatterns: patterns})
		return err
	})
	p.do("open "+abs, cfg.timeout, func(ctx context.Context) error {
		return chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.ToSlash(abs)))
	})
	return p
}

// Close kills the browser and every process it started. It is safe to call
// more than once, and Open already registers it with t.Cleanup.
func (p *Page) Close() {
	p.once.Do(p.close)
}

// start launches the browser. The first action on the tab binds the
// browser's life to its context, so it runs on p.ctx itself, with the timeout
// kept here and not in the context.
func (p *Page) start(timeout time.Duration) {
	p.t.Helper()
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(p.ctx) }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case err := <-started:
		if err != nil {
			p.t.Fatalf("chromium: start the browser: %v", err)
		}
		p.pid = chromedp.FromContext(p.ctx).Browser.Process().Pid
	case <-timer.C:
		p.Close()
		p.t.Fatalf("chromium: the browser did not start in %v", timeout)
	}
}

// do runs f with a context bounded by timeout, and fails the test with the
// page's errors so far when f fails.
func (p *Page) do(what string, timeout time.Duration, f func(ctx context.Context) error) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, timeout)
	defer cancel()
	if err := f(ctx); err != nil {
		p.t.Fatalf("chromium: %s: %v%s", what, err, p.errorList())
	}
}
