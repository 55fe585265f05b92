package js

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/dop251/goja"
	"github.com/omnik-dev/omnik/metrics"
)

// LifecycleError is an exception or timeout in setup, teardown or handleSummary (exit 107).
type LifecycleError struct {
	Stage string
	Err   error
}

func (e *LifecycleError) Error() string { return fmt.Sprintf("%s: %s", e.Stage, Exception(e.Err)) }
func (e *LifecycleError) Unwrap() error { return e.Err }

// Setup runs the exported setup() in its own runtime and returns its JSON result.
func (r *Runner) Setup(ctx context.Context, timeout time.Duration) (SetupData, error) {
	if !r.HasExport("setup") {
		return nil, nil
	}
	v, _, err := r.runStage(ctx, "setup", timeout)
	if err != nil {
		return nil, err
	}
	if isNullish(v) {
		return nil, nil
	}
	raw, err := json.Marshal(v.Export())
	if err != nil {
		return nil, &LifecycleError{Stage: "setup", Err: fmt.Errorf("its result is not JSON-serialisable: %w", err)}
	}
	return raw, nil
}

// Teardown runs the exported teardown(data) in its own runtime.
func (r *Runner) Teardown(ctx context.Context, data SetupData, timeout time.Duration) error {
	if !r.HasExport("teardown") {
		return nil
	}
	_, _, err := r.runStage(ctx, "teardown", timeout, data)
	return err
}

// HandleSummary calls handleSummary(data), data being the summary's JSON, and returns its
// {stdout|stderr|path: content} map; ok is false when the script does not export it or
// it returned nothing. textSummary(data) there renders the summary's sections too.
func (r *Runner) HandleSummary(ctx context.Context, summary *metrics.Summary, timeout time.Duration) (out map[string][]byte, ok bool, err error) {
	if !r.HasExport("handleSummary") {
		return nil, false, nil
	}
	raw, err := json.Marshal(summary)
	if err != nil {
		return nil, false, &LifecycleError{Stage: "handleSummary", Err: err}
	}
	r.summarySections = summary.Sections
	v, vu, err := r.runStage(ctx, "handleSummary", timeout, raw)
	if err != nil {
		return nil, false, err
	}
	obj, isObj := v.(*goja.Object)
	if !isObj || len(obj.Keys()) == 0 {
		return nil, false, nil
	}
	out = map[string][]byte{}
	for _, k := range obj.Keys() {
		val := obj.Get(k)
		if _, isBuf := val.Export().(goja.ArrayBuffer); isBuf {
			out[k] = vu.Bytes(val)
		} else {
			out[k] = []byte(val.String())
		}
	}
	return out, true, nil
}

// runStage runs one lifecycle function in a fresh runtime (VU 0) with a timeout; its
// arg, if any, is JSON decoded in that runtime.
func (r *Runner) runStage(ctx context.Context, name string, timeout time.Duration, arg ...json.RawMessage) (goja.Value, *VU, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	vu, err := r.newVU(ctx, 0, false)
	if err != nil {
		return nil, nil, &LifecycleError{Stage: name, Err: err}
	}
	vu.state = &vuState{meta: map[string]string{"vu": "0"}}
	args := []goja.Value{}
	if len(arg) > 0 {
		args = append(args, vu.setupData(arg[0]))
	}
	v, err := vu.call(ctx, name, args...)
	vu.flush()
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("timed out after %s", timeout)
		}
		return nil, nil, &LifecycleError{Stage: name, Err: err}
	}
	return v, vu, nil
}
