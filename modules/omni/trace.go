package omni

import (
	"github.com/dop251/goja"
	"github.com/omnik-dev/omnik/js"
	"github.com/omnik-dev/omnik/modules/omni/dataset"
)

// maxTracePrompt bounds a synthetic prompt, so a wrong input_length is an error rather
// than gigabytes of words: well above any context window.
const maxTracePrompt = 1 << 22

// traceRequest is omni.traceRequest(entry): the chat request a trace entry stands for.
// An entry's "body" is the request itself; otherwise its "messages", or a synthetic
// prompt of input_length tokens whose 512-token blocks follow its hash_ids
// (dataset.BlockPrompt), and max_tokens = output_length. The prompt is built in Go: a
// 100k-token prompt of JS string concatenation would cost the VU milliseconds.
func traceRequest(vu *js.VU) func(goja.FunctionCall) goja.Value {
	return func(c goja.FunctionCall) goja.Value {
		rt := vu.Runtime()
		entry, ok := c.Argument(0).(*goja.Object)
		if !ok {
			panic(rt.NewTypeError("omni.traceRequest(entry): want a trace entry (exec.scenario.traceEntry), got %s", c.Argument(0)))
		}
		if body, ok := entry.Get("body").(*goja.Object); ok {
			return body
		}
		req := rt.NewObject()
		if msgs, ok := entry.Get("messages").(*goja.Object); ok {
			_ = req.Set("messages", msgs)
		} else {
			n := entry.Get("input_length")
			if isNullish(n) {
				panic(rt.NewTypeError("omni.traceRequest(entry): the entry has no body, messages or input_length; for a dataset entry send dataset[entry.dataset]"))
			}
			tokens := n.ToInteger()
			if tokens < 1 || tokens > maxTracePrompt {
				panic(rt.NewTypeError("omni.traceRequest(entry): input_length %d: want 1 to %d", tokens, maxTracePrompt))
			}
			var ids []int64
			if v := entry.Get("hash_ids"); !isNullish(v) {
				if err := rt.ExportTo(v, &ids); err != nil {
					panic(rt.NewTypeError("omni.traceRequest(entry): hash_ids must be an array of integers: %v", err))
				}
			}
			var seed int64
			if v := entry.Get("index"); !isNullish(v) {
				seed = v.ToInteger()
			}
			msg := rt.NewObject()
			_ = msg.Set("role", "user")
			_ = msg.Set("content", dataset.BlockPrompt(ids, int(tokens), seed))
			_ = req.Set("messages", rt.NewArray(msg))
		}
		if v := entry.Get("output_length"); !isNullish(v) {
			_ = req.Set("max_tokens", v.ToInteger())
		}
		return req
	}
}

func isNullish(v goja.Value) bool { return v == nil || goja.IsUndefined(v) || goja.IsNull(v) }
