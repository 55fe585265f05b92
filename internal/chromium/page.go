package chromium

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"math"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// pollEvery is how often WaitFor asks the page again. It is no deadline.
const pollEvery = 100 * time.Millisecond

// WaitFor polls the JavaScript expression expr (awaited if it is a promise)
// until it is truthy, such as `window.omnikReportReady === true`. An
// expression that throws counts as not yet true. After timeout (0 means the
// Open timeout) the test fails with the last error and the page's errors.
func (p *Page) WaitFor(expr string, timeout time.Duration) {
	p.t.Helper()
	if timeout <= 0 {
		timeout = p.timeout
	}
	ctx, cancel := context.WithTimeout(p.ctx, timeout)
	defer cancel()
	js := "(async () => Boolean(await (" + expr + ")))()"
	var last error
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js, chromedp.EvalAwaitPromise))
		if err == nil && ok {
			return
		}
		if err != nil && ctx.Err() == nil {
			last = err // the deadline's own error says nothing about the page
		}
		select {
		case <-ctx.Done():
			p.t.Fatalf("chromium: %s still not true after %v (last error: %v)%s", expr, timeout, last, p.errorList())
		case <-time.After(pollEvery):
		}
	}
}

// Eval evaluates the JavaScript expression expr, awaits it if it is a
// promise, and unmarshals its JSON value into out (nil ignores the value).
// A thrown exception fails the test.
func (p *Page) Eval(expr string, out any) {
	p.t.Helper()
	var raw []byte
	p.do("eval "+expr, p.timeout, func(ctx context.Context) (err error) {
		raw, err = chromedp.Run(ctx, chromedp.Evaluate[[]byte](expr, chromedp.EvalAwaitPromise))
		return err
	})
	if out == nil {
		return
	}
	if len(raw) == 0 { // undefined
		raw = []byte("null")
	}
	if err := json.Unmarshal(raw, out); err != nil {
		p.t.Fatalf("chromium: eval %s: %v", expr, err)
	}
}

// Screenshot captures the whole page, also below the fold, as the browser
// renders it, and decodes the PNG.
func (p *Page) Screenshot() image.Image {
	p.t.Helper()
	var img image.Image
	p.do("screenshot", p.timeout, func(ctx context.Context) error {
		m, err := chromedp.Call(ctx, page.GetLayoutMetrics, cdp.Empty{})
		if err != nil {
			return err
		}
		size := m.CSSContentSize
		shot, err := chromedp.Call(ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{
			Format:                page.CaptureScreenshotFormatPng,
			Clip:                  &page.Viewport{Width: math.Ceil(size.Width), Height: math.Ceil(size.Height), Scale: 1},
			CaptureBeyondViewport: new(true),
		})
		if err != nil {
			return err
		}
		img, err = png.Decode(bytes.NewReader(shot.Data))
		return err
	})
	return img
}

// unrenderedJS lists the elements matching a selector that show no drawing:
// neither a canvas with a painted (non-transparent) pixel nor an SVG with a
// shape of non-zero size, in the element or below it. ECharts draws into one
// or the other, depending on its renderer.
const unrenderedJS = `((sel) => {
	const els = [...document.querySelectorAll(sel)];
	if (els.length === 0) return ["no element matches " + sel];
	const painted = (c) => {
		if (c.width === 0 || c.height === 0) return false;
		const copy = document.createElement("canvas");
		copy.width = c.width; copy.height = c.height;
		const g = copy.getContext("2d");
		g.drawImage(c, 0, 0); // works for 2d and WebGL canvases alike
		const d = g.getImageData(0, 0, c.width, c.height).data;
		for (let i = 3; i < d.length; i += 4) if (d[i] !== 0) return true;
		return false;
	};
	const drawn = (s) => [...s.querySelectorAll("path,rect,circle,ellipse,line,polyline,polygon,text,image")]
		.some((e) => { const b = e.getBBox(); return b.width > 0 || b.height > 0; });
	const has = (el, tag, ok) => (el.matches(tag) && ok(el)) || [...el.querySelectorAll(tag)].some(ok);
	return els.filter((el) => !has(el, "canvas", painted) && !has(el, "svg", drawn))
		.map((el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
			(el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\s+/).join(".") : ""));
})`

// Unrendered returns a short description of each element matching the CSS
// selector that has drawn nothing: no canvas with a painted pixel and no SVG
// with a visible shape inside it. No match at all is reported too, so an
// empty result means every plot rendered.
func (p *Page) Unrendered(selector string) []string {
	p.t.Helper()
	arg, _ := json.Marshal(selector)
	var bad []string
	p.Eval(unrenderedJS+"("+string(arg)+")", &bad)
	return bad
}
