package chromium

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
)

// listen runs in chromedp's read loop for the tab, in the order the browser
// sent the events, so Errors keeps that order. It must return fast and send
// no command.
func (p *Page) listen(ev any) {
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		switch ev.Type {
		case runtime.ConsoleAPICalledTypeError, runtime.ConsoleAPICalledTypeWarning, runtime.ConsoleAPICalledTypeAssert:
			p.add("console.%s: %s", ev.Type, argsText(ev.Args))
		}
	case *runtime.EventExceptionThrown:
		p.add("exception: %s", exceptionText(ev.ExceptionDetails))
	case *log.EventEntryAdded:
		if e := ev.Entry; e != nil && e.Level == log.EntryLevelError {
			p.add("log (%s): %s %s", e.Source, e.Text, e.URL)
		}
	case *network.EventRequestWillBeSent:
		p.mu.Lock()
		p.urls[ev.RequestID] = ev.Request.URL
		p.mu.Unlock()
	case *network.EventLoadingFailed:
		p.mu.Lock()
		url := p.urls[ev.RequestID]
		p.mu.Unlock()
		if ev.BlockedReason != "" {
			p.add("request blocked (%s): %s", ev.BlockedReason, url)
		} else {
			p.add("request failed (%s): %s", ev.ErrorText, url)
		}
	case *network.EventResponseReceived:
		// The blocklist must have stopped anything that is not local; say so
		// loudly when it did not.
		if u := ev.Response.URL; !local(u) {
			p.add("request not blocked: %s", u)
		}
	case *network.EventWebSocketCreated:
		p.add("websocket opened: %s", ev.URL)
	}
}

// add records one failure-worthy event.
func (p *Page) add(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.errs = append(p.errs, fmt.Sprintf(format, args...))
}

// Errors returns, in the order they happened, the console errors and
// warnings, uncaught exceptions, browser log errors, and blocked or failed
// requests of the page so far. A self-contained page that works has none.
func (p *Page) Errors() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.errs...)
}

// errorList is Errors as text for a failure message.
func (p *Page) errorList() string {
	errs := p.Errors()
	if len(errs) == 0 {
		return "\n(the page reported no errors)"
	}
	return "\npage errors:\n\t" + strings.Join(errs, "\n\t")
}

// local reports whether a URL is one a self-contained page may load.
func local(u string) bool {
	for _, scheme := range []string{"file:", "data:", "blob:", "about:"} {
		if strings.HasPrefix(u, scheme) {
			return true
		}
	}
	return false
}

// argsText prints console arguments roughly as the DevTools console does:
// strings bare, other primitives as JSON, objects by their description.
func argsText(args []*runtime.RemoteObject) string {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		var s string
		switch {
		case a.Type == runtime.RemoteObjectTypeString && json.Unmarshal(a.Value, &s) == nil:
		case len(a.Value) > 0:
			s = string(a.Value)
		case a.UnserializableValue != "":
			s = string(a.UnserializableValue)
		case a.Description != "":
			s = a.Description
		default:
			s = string(a.Type)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// exceptionText is the message and place of an uncaught exception: the
// protocol's Text is often just "Uncaught", and the error is in Exception.
func exceptionText(d *runtime.ExceptionDetails) string {
	if d == nil {
		return "(no details)"
	}
	msg := d.Text
	if d.Exception != nil && d.Exception.Description != "" {
		first, _, _ := strings.Cut(d.Exception.Description, "\n")
		msg += " " + first
	}
	return fmt.Sprintf("%s (%s:%d:%d)", msg, d.URL, d.LineNumber+1, d.ColumnNumber+1)
}
