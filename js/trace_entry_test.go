package js

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// entry is a TraceEntry that counts how often its object is built.
type entry struct{ built int }

func (e *entry) Object() map[string]any {
	e.built++
	return map[string]any{"index": 3, "input_length": 10.0, "body": map[string]any{"messages": []any{"a"}}}
}

// exec.scenario.traceEntry is the iteration's entry, a plain object built once per
// iteration and the same on every read, nested values included; other executors'
// iterations have none.
func TestScenarioTraceEntry(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.js")
	src := `import exec from 'omnik/execution';
export default function () {
  const e = exec.scenario.traceEntry;
  if (e === undefined) { globalThis.seen = 'none'; return; }
  // A plain object: its nested values are the same on every read, and a push stays.
  e.body.messages.push('b');
  globalThis.seen = e.index + ':' + (e === exec.scenario.traceEntry) + ':' + (e.body === exec.scenario.traceEntry.body) + ':' + exec.scenario.traceEntry.body.messages.length;
}`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r, _ := load(t, path)
	vu, err := r.NewVU(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	e := &entry{}
	sc := &Scenario{Name: "s"}
	for _, tc := range []struct {
		entry TraceEntry
		want  string
	}{{e, "3:true:true:2"}, {nil, "none"}, {e, "3:true:true:2"}} {
		if err := vu.RunIteration(context.Background(), &Iteration{Scenario: sc, TraceEntry: tc.entry}); err != nil {
			t.Fatal(err)
		}
		if got := vu.rt.Get("seen").String(); got != tc.want {
			t.Errorf("seen %q, want %q", got, tc.want)
		}
	}
	if e.built != 2 {
		t.Errorf("the entry's object was built %d times over two iterations, want 2", e.built)
	}
}
