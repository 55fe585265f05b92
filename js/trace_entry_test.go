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
	return map[string]any{"index": 3, "input_length": 10.0}
}

// exec.scenario.traceEntry is the iteration's entry, built once per iteration and the
// same object on every read; other executors' iterations have none.
func TestScenarioTraceEntry(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.js")
	src := `import exec from 'omnik/execution';
export default function () {
  const e = exec.scenario.traceEntry;
  globalThis.seen = e === undefined ? 'none' : e.index + ':' + (e === exec.scenario.traceEntry);
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
	}{{e, "3:true"}, {nil, "none"}, {e, "3:true"}} {
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
