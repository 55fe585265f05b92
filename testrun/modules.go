package testrun

import (
	"github.com/omnik-dev/omnik/engine"
	httpmodule "github.com/omnik-dev/omnik/modules/http"
	"github.com/omnik-dev/omnik/modules/httpdebug"
	"github.com/omnik-dev/omnik/modules/omni"
)

// newModules makes the run's omni and omnik/http modules, their metrics registered
// before the script loads so thresholds on them always parse, and both behind one
// --http-debug printer.
func (t *Test) newModules() error {
	o := &t.opts
	mode, err := httpdebug.ParseMode(o.HTTPDebug)
	if err != nil {
		return engine.Invalid(err)
	}
	omni.RegisterMetrics(t.registry)
	omniOpts := []omni.Option{omni.WithWarn(func(msg string) { o.Log.Warn(msg) }), omni.WithStream(t.stream, t.origin)}
	var httpOpts []httpmodule.Option
	if mode != httpdebug.Off {
		p := httpdebug.NewPrinter(o.Stderr, mode)
		omniOpts = append(omniOpts, omni.WithTransport(p.Wrap))
		httpOpts = append(httpOpts, httpmodule.WithTransport(p.Wrap))
	}
	t.module = omni.New(omniOpts...)
	t.http = httpmodule.New(httpmodule.RegisterMetrics(t.registry), httpOpts...)
	return nil
}
