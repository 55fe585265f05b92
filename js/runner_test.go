package js

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/metrics"
)

// sampleSink collects samples for assertions.
type sampleSink struct {
	mu      sync.Mutex
	samples []metrics.Sample
}

func (s *sampleSink) Collect(b []metrics.Sample) {
	s.mu.Lock()
	s.samples = append(s.samples, b...)
	s.mu.Unlock()
}

func (s *sampleSink) byMetric(name string) []metrics.Sample {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []metrics.Sample
	for _, x := range s.samples {
		if x.Metric.Name == name {
			out = append(out, x)
		}
	}
	return out
}

func load(t *testing.T, path string, opts ...Option) (*Runner, *sampleSink) {
	t.Helper()
	sink := &sampleSink{}
	r, err := Load(path, append([]Option{WithCollector(sink)}, opts...)...)
	if err != nil {
		t.Fatalf("Load(%s): %v", path, err)
	}
	return r, sink
}

func TestLifecycleRunsSetupIterationsAndTeardown(t *testing.T) {
	t.Parallel()
	r, sink := load(t, "testdata/lifecycle.js")
	if got := string(r.Options()); !strings.Contains(got, `"iterations":4`) {
		t.Fatalf("options = %s", got)
	}
	for _, name := range []string{"default", "setup", "teardown"} {
		if !r.HasExport(name) {
			t.Errorf("export %q not found in %v", name, r.Exports())
		}
	}
	ctx := context.Background()
	data, err := r.Setup(ctx, time.Second)
	if err != nil || string(data) != `{"a":1,"list":[1,2]}` {
		t.Fatalf("setup = %s, %v", data, err)
	}
	vu, err := r.NewVU(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	sc := &Scenario{Name: "chat", Tags: map[string]string{"team": "a"}}
	for i := 0; i < 2; i++ {
		if err := vu.RunIteration(ctx, &Iteration{Scenario: sc, SetupData: data}); err != nil {
			t.Fatalf("iteration %d: %v", i, err)
		}
	}
	if got := vu.rt.Get("seen").String(); got != "chat:1:1:2" {
		t.Errorf("seen = %q", got)
	}
	trend := sink.byMetric("my_trend")
	if len(trend) != 2 || trend[0].Value != 2 {
		t.Fatalf("my_trend samples = %+v", trend)
	}
	if v, _ := trend[0].Tags.Get("scenario"); v != "chat" {
		t.Errorf("scenario tag = %q", v)
	}
	if v, _ := trend[0].Tags.Get("kind"); v != "x" {
		t.Errorf("user tag = %q", v)
	}
	checks := sink.byMetric("checks")
	if len(checks) != 4 {
		t.Fatalf("checks samples = %d, want 4", len(checks))
	}
	passed := 0.0
	for _, c := range checks {
		passed += c.Value
	}
	if passed != 2 {
		t.Errorf("passed checks = %v, want 2", passed)
	}
	if g := sink.byMetric("group_duration"); len(g) != 2 {
		t.Errorf("group_duration samples = %d", len(g))
	} else if v, _ := g[0].Tags.Get("group"); v != "::g" {
		t.Errorf("group tag = %q", v)
	}
	if n := len(sink.byMetric("iterations")); n != 2 {
		t.Errorf("iterations = %d", n)
	}
	if err := r.Teardown(ctx, data, time.Second); err != nil {
		t.Fatal(err)
	}
}

func TestTypeScriptRuns(t *testing.T) {
	t.Parallel()
	r, _ := load(t, "testdata/types.ts")
	vu, err := r.NewVU(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := vu.RunIteration(context.Background(), &Iteration{Scenario: &Scenario{Name: "s"}}); err != nil {
		t.Fatal(err)
	}
	if got := vu.rt.Get("sum").ToInteger(); got != 3 {
		t.Errorf("sum = %d", got)
	}
}

func TestSyntaxErrorNamesFileLineAndColumn(t *testing.T) {
	t.Parallel()
	_, err := Load("testdata/syntax.js")
	var se *ScriptError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want *ScriptError", err)
	}
	msg := err.Error()
	for _, want := range []string{"syntax.js:2:11", "let x = ;", "^"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
}

func TestExceptionStackUsesOriginalLines(t *testing.T) {
	t.Parallel()
	r, _ := load(t, "testdata/throws.js")
	vu, err := r.NewVU(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	err = vu.RunIteration(context.Background(), &Iteration{Scenario: &Scenario{Name: "s"}})
	if err == nil {
		t.Fatal("want an exception")
	}
	msg := Exception(err)
	for _, want := range []string{"boom", "throws.js:5", "throws.js:2"} {
		if !strings.Contains(msg, want) {
			t.Errorf("exception %q lacks %q", msg, want)
		}
	}
}
