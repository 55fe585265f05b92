package js

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// runWithSamples runs one iteration of src and returns the samples it produced.
func runWithSamples(t *testing.T, src string) (*sampleSink, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.js")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var cancelled atomic.Int32
	r, sink := load(t, path, WithModule("omnik/native", nativeModule(&cancelled)))
	vu, err := r.NewVU(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	return sink, vu.RunIteration(context.Background(), &Iteration{Scenario: &Scenario{Name: "s"}})
}

// groupsOf maps each check (by name) and each group_duration sample to its group tag.
func groupsOf(sink *sampleSink) (checks map[string]string, durations []string) {
	checks = map[string]string{}
	for _, s := range sink.byMetric("checks") {
		name, _ := s.Tags.Get("check")
		checks[name], _ = s.Tags.Get("group")
	}
	for _, s := range sink.byMetric("group_duration") {
		g, _ := s.Tags.Get("group")
		durations = append(durations, g)
	}
	return checks, durations
}

func TestAsyncGroupKeepsItsTagAcrossAwaits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		src       string
		checks    map[string]string
		durations string // group_duration samples' groups (in any order: concurrent ones may finish either way)
	}{
		{"awaits inside the body", `import { group, check } from 'omnik';
import { delay } from 'omnik/native';
export default async function () {
  const v = await group('a', async () => {
    check(1, { before: true });
    await delay(5, 'x');
    check(1, { after: true });
    await new Promise((r) => setTimeout(r, 2));
    check(1, { 'after timer': true });
    return 7;
  });
  check(v, { outside: (x) => x === 7 });
}`, map[string]string{"before": "::a", "after": "::a", "after timer": "::a", "outside": ""}, "::a"},
		{"concurrent groups do not mix", `import { group, check } from 'omnik';
import { delay } from 'omnik/native';
export default async function () {
  await Promise.all([
    group('slow', async () => { await delay(20, 'x'); check(1, { slow: true }); }),
    group('fast', async () => { await delay(1, 'y'); check(1, { fast: true }); }),
  ]);
  check(1, { root: true });
}`, map[string]string{"slow": "::slow", "fast": "::fast", "root": ""}, "::fast,::slow"},
		{"nested async groups", `import { group, check } from 'omnik';
import { delay } from 'omnik/native';
export default async function () {
  await group('outer', async () => {
    await group('inner', async () => { await delay(2, 'x'); check(1, { inner: true }); });
    check(1, { outer: true });
  });
}`, map[string]string{"inner": "::outer::inner", "outer": "::outer"}, "::outer::inner,::outer"},
		{"the body's caller goes on outside the group", `import { group, check } from 'omnik';
import { delay } from 'omnik/native';
export default async function () {
  const p = group('a', async () => { await delay(5, 'x'); check(1, { late: true }); });
  check(1, { meanwhile: true });
  await p;
}`, map[string]string{"late": "::a", "meanwhile": ""}, "::a"},
		{"a timer runs in the group that armed it", `import { group, check, sleep } from 'omnik';
export default function () {
  setTimeout(() => check(1, { 'armed outside': true }), 1);
  group('a', () => {
    setTimeout(() => check(1, { 'armed inside': true }), 5);
    sleep(0.02);
  });
}`, map[string]string{"armed outside": "", "armed inside": "::a"}, "::a"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sink, err := runWithSamples(t, tc.src)
			if err != nil {
				t.Fatalf("iteration: %v", Exception(err))
			}
			checks, durations := groupsOf(sink)
			for name, want := range tc.checks {
				if got, ok := checks[name]; !ok || got != want {
					t.Errorf("check %q: group %q (recorded %v), want %q", name, got, ok, want)
				}
			}
			want := strings.Split(tc.durations, ",")
			slices.Sort(durations)
			slices.Sort(want)
			if got := strings.Join(durations, ","); got != strings.Join(want, ",") {
				t.Errorf("group_duration groups = %q, want %q", got, tc.durations)
			}
		})
	}
}

func TestAsyncGroupDurationCoversItsAwaits(t *testing.T) {
	t.Parallel()
	sink, err := runWithSamples(t, `import { group } from 'omnik';
import { delay } from 'omnik/native';
export default async function () { await group('a', async () => { await delay(30, 'x'); }); }`)
	if err != nil {
		t.Fatal(Exception(err))
	}
	d := sink.byMetric("group_duration")
	// The body awaited 30 ms in Go: a group that ended at its first await would be ~0.
	if len(d) != 1 || d[0].Value < 30 {
		t.Fatalf("group_duration = %+v, want one sample of at least 30 ms", d)
	}
}

func TestAsyncGroupRejectionReachesTheCaller(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, src string }{
		{"awaited", `import { group } from 'omnik';
export default async function () { await group('a', async () => { throw new Error('inside a'); }); }`},
		{"not awaited", `import { group } from 'omnik';
export default function () { group('a', async () => { throw new Error('inside a'); }); }`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sink, err := runWithSamples(t, tc.src)
			if err == nil || !strings.Contains(Exception(err), "inside a") {
				t.Fatalf("err = %v, want the body's error", err)
			}
			if d := sink.byMetric("group_duration"); len(d) != 0 {
				t.Errorf("group_duration recorded for a failed body: %+v", d)
			}
		})
	}
}
