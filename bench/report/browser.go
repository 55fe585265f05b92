package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/omnik-dev/omnik/internal/chromium"
)

// timeInBrowser opens the page in headless Chromium, offline, and returns the time from
// the navigation until the report says every chart is drawn (window.omnikReportReady).
func timeInBrowser(page string) (time.Duration, error) {
	exe, err := chromium.Find()
	if err != nil {
		return 0, err
	}
	abs, err := filepath.Abs(page)
	if err != nil {
		return 0, err
	}
	profile, err := os.MkdirTemp("", "omnik-report-bench-profile")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(profile)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.UserDataDir(profile), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.WindowSize(1400, 900), chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"))...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil { // the browser is up
		return 0, err
	}
	ctx, cancelTimeout := context.WithTimeout(ctx, 5*time.Minute)
	defer cancelTimeout()
	start := time.Now()
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.ToSlash(abs))); err != nil {
		return 0, fmt.Errorf("%s in the browser: %w", page, err)
	}
	for {
		ready, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.omnikReportReady === true`))
		if err != nil {
			return 0, fmt.Errorf("%s in the browser: %w", page, err)
		}
		if ready {
			return time.Since(start), nil
		}
		time.Sleep(10 * time.Millisecond)
	}
}
