package main

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// passingScript is a closed run that meets its thresholds.
const passingScript = `import { check } from 'omnik';
import { Trend } from 'omnik/metrics';
const t = new Trend('my_trend');
export const options = {
  vus: 2,
  iterations: 4,
  thresholds: { my_trend: ['p(99) < 1000'], checks: ['rate == 1'] },
};
export default function () {
  t.add(5);
  check(1, { 'one is one': (v) => v === 1 });
}
`

// trendScript adds VALUE to my_trend ITERATIONS times under a p(99) < 10 threshold.
func trendScript(value string) string {
	return `import { Trend } from 'omnik/metrics';
const t = new Trend('my_trend');
export const options = { vus: 1, iterations: 3, thresholds: { my_trend: ['p(99) < 10'] } };
export default function () { ` + value + ` }
`
}

func TestRunExitCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		script string
		args   []string
		want   expect
	}{
		{
			name:   "passing thresholds exit 0 with the summary",
			script: passingScript,
			want: expect{code: 0,
				stdout: []string{"THRESHOLDS", "✓ p(99) < 1000", "✓ rate == 1", "CHECKS", "✓ one is one  100.00%  4 passes  0 fails",
					"METRICS", "checks..............: 100.00% 4 out of 4", "my_trend............: avg=5 min=5"},
				notStdout: []string{"✗"}},
		},
		{
			name:   "trend above its threshold exits 99",
			script: trendScript("t.add(50);"),
			want:   expect{code: 99, stdout: []string{"✗ p(99) < 10  50", "my_trend............: avg=50"}},
		},
		{
			name:   "threshold from the command line exits 99",
			script: passingScript,
			args:   []string{"--threshold", "my_trend.p99 < 1"},
			want:   expect{code: 99, stdout: []string{"✓ p(99) < 1000", "✗ my_trend.p99 < 1  5"}},
		},
		{
			name:   "threshold on a metric without samples fails as no data",
			script: trendScript(""),
			want:   expect{code: 99, stdout: []string{"✗ p(99) < 10  no data"}},
		},
		{
			name: "exception in setup exits 107 and skips the iterations",
			script: `export const options = { iterations: 1 };
export function setup() { throw new Error('setup boom'); }
export default function () { console.log('DEFAULT_RAN'); }
`,
			want: expect{code: 107, stderr: []string{"Error: setup boom", "script.js:2:"}, notStderr: []string{"DEFAULT_RAN"}},
		},
		{
			name: "exception in teardown exits 107 after the summary",
			script: `export const options = { iterations: 1 };
export function teardown() { throw new Error('teardown boom'); }
export default function () {}
`,
			want: expect{code: 107, stdout: []string{"METRICS", "iterations"}, stderr: []string{"Error: teardown boom", "script.js:2:"}},
		},
		{
			name:   "exception in init code exits 104",
			script: "throw new Error('init boom');\nexport default function () {}\n",
			want:   expect{code: 104, stderr: []string{"error in init code", "init boom"}, notStdout: []string{"METRICS"}},
		},
		{
			name: "test.fail exits 110 and the run goes on to the end",
			script: `import { test } from 'omnik/execution';
export const options = { vus: 1, iterations: 3 };
export default function () { test.fail('not good'); console.log('AFTER_FAIL'); }
`,
			want: expect{code: 110, stdout: []string{"iterations..........: 3 "}, stderr: []string{"AFTER_FAIL"}},
		},
		{
			name: "a failed threshold outranks test.fail",
			script: `import { test } from 'omnik/execution';
import { Trend } from 'omnik/metrics';
const t = new Trend('my_trend');
export const options = { iterations: 1, thresholds: { my_trend: ['max < 1'] } };
export default function () { t.add(2); test.fail(); }
`,
			want: expect{code: 99, stdout: []string{"✗ max < 1"}},
		},
		{
			name: "a throwing handleSummary exits 107 and prints the default summary",
			script: `export const options = { iterations: 1 };
export default function () {}
export function handleSummary() { throw new Error('hs boom'); }
`,
			want: expect{code: 107, stdout: []string{"METRICS", "iterations"}, stderr: []string{"handleSummary failed", "hs boom"}},
		},
		{
			name: "test.fail outranks a throwing handleSummary",
			script: `import { test } from 'omnik/execution';
export const options = { iterations: 1 };
export default function () { test.fail(); }
export function handleSummary() { throw new Error('hs boom'); }
`,
			want: expect{code: 110, stderr: []string{"hs boom"}},
		},
		{
			name:   "unknown option keys warn and are ignored",
			script: "export const options = { iterations: 1, vuz: 3 };\nexport default function () {}\n",
			want:   expect{code: 0, stderr: []string{`unknown option \"vuz\" ignored`}, stdout: []string{"iterations"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeFiles(t, map[string]string{"script.js": tt.script})
			r := runOmnik(t, dir, nil, append(append([]string{"run", "-q"}, tt.args...), "script.js")...)
			tt.want.check(t, r)
		})
	}
}

func TestRunInvalidConfigExits104(t *testing.T) {
	t.Parallel()
	const noop = "export default function () {}\n"
	tests := []struct {
		name   string
		files  map[string]string // script.js is run
		args   []string
		env    []string
		stderr []string
	}{
		{
			name:   "syntax error shows file:line:col and the offending line",
			files:  map[string]string{"script.js": "export const options = { vus: 1 };\nexport default function () {\n  let x = ;\n}\n"},
			stderr: []string{"script.js:3:11:", `Unexpected ";"`, "  let x = ;", "          ^"},
		},
		{
			name:   "negative vus",
			files:  map[string]string{"script.js": "export const options = { vus: -1, iterations: 1 };\n" + noop},
			stderr: []string{`"vus" must not be negative, got -1`},
		},
		{
			name:   "shortcut and scenarios in one layer",
			files:  map[string]string{"script.js": `export const options = { vus: 1, duration: '1s', scenarios: { a: { executor: 'shared-iterations', iterations: 1 } } };` + "\n" + noop},
			stderr: []string{"script options:", `"vus" and "scenarios" cannot be used together`},
		},
		{
			name:   "--vus alone over script scenarios",
			files:  map[string]string{"script.js": `export const options = { scenarios: { a: { executor: 'shared-iterations', iterations: 1 } } };` + "\n" + noop},
			args:   []string{"--vus", "3"},
			stderr: []string{"command-line flags: vus alone cannot change the scenarios of script options"},
		},
		{
			name:   "malformed threshold names the expression and column",
			files:  map[string]string{"script.js": `export const options = { iterations: 1, thresholds: { iterations: ['count >> 1'] } };` + "\n" + noop},
			stderr: []string{`threshold "count >> 1"`, "col 8"},
		},
		{
			name:   "malformed --threshold",
			files:  map[string]string{"script.js": noop},
			args:   []string{"--threshold", "iterations.count < abc"},
			stderr: []string{`threshold "iterations.count < abc"`, "col 20", "expected a number"},
		},
		{
			name:   "unknown metric in a threshold",
			files:  map[string]string{"script.js": `export const options = { iterations: 1, thresholds: { no_such_metric: ['count > 1'] } };` + "\n" + noop},
			stderr: []string{`unknown metric "no_such_metric"`},
		},
		{
			name:   "unknown executor",
			files:  map[string]string{"script.js": `export const options = { scenarios: { a: { executor: 'warp-speed', iterations: 1 } } };` + "\n" + noop},
			stderr: []string{`scenario "a": unknown executor "warp-speed"`, "shared-iterations"},
		},
		{
			name:   "exec function not exported",
			files:  map[string]string{"script.js": `export const options = { scenarios: { a: { executor: 'shared-iterations', iterations: 1, exec: 'hidden' } } };` + "\n" + noop + "function hidden() {}\n"},
			stderr: []string{`exec function "hidden" is not exported`},
		},
		{
			name:   "bad -e pair",
			files:  map[string]string{"script.js": noop},
			args:   []string{"-e", "NOEQUALS"},
			stderr: []string{`-e "NOEQUALS": expected KEY=VALUE`},
		},
		{
			name:   "missing script file",
			files:  map[string]string{},
			stderr: []string{"script.js", "no such file or directory"},
		},
		{
			name:   "missing import",
			files:  map[string]string{"script.js": "import x from './missing.js';\n" + noop},
			stderr: []string{"script.js:1:", `Could not resolve "./missing.js"`},
		},
		{
			name:   "unknown --out type",
			files:  map[string]string{"script.js": noop},
			args:   []string{"--out", "xml=f"},
			stderr: []string{`unknown output "xml"`},
		},
		{
			name:   "unreadable --config",
			files:  map[string]string{"script.js": noop},
			args:   []string{"--config", "nope.json"},
			stderr: []string{"--config", "nope.json"},
		},
		{
			name:   "OMNIK_VUS not a number",
			files:  map[string]string{"script.js": noop},
			env:    []string{"OMNIK_VUS=many"},
			stderr: []string{`OMNIK_VUS="many"`},
		},
		{
			name:   "bad --duration",
			files:  map[string]string{"script.js": noop},
			args:   []string{"--duration", "soon"},
			stderr: []string{`--duration "soon"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeFiles(t, tt.files)
			r := runOmnik(t, dir, tt.env, append(append([]string{"run", "-q"}, tt.args...), "script.js")...)
			expect{code: 104, stderr: tt.stderr}.check(t, r)
			if strings.TrimSpace(r.stdout) != "" {
				t.Errorf("an invalid run printed on stdout:\n%s", r.stdout)
			}
			if n := strings.Count(r.stderr, "error:"); n != 1 {
				t.Errorf("stderr has %d error lines, want exactly one:\n%s", n, r.stderr)
			}
		})
	}
}

func TestRunAbortOnFailStopsEarly(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"script.js": `import { Trend } from 'omnik/metrics';
import { sleep } from 'omnik';
const t = new Trend('my_trend');
export const options = {
  vus: 1,
  duration: '30s',
  thresholds: { my_trend: [{ threshold: 'p(99) < 10', abortOnFail: true }] },
};
export function teardown() { console.log('TEARDOWN_RAN'); }
export default function () { t.add(50); sleep(0.05); }
`})
	r := runOmnik(t, dir, nil, "run", "-q", "script.js")
	expect{code: 99, stdout: []string{"✗ p(99) < 10  50"}, stderr: []string{"TEARDOWN_RAN"}}.check(t, r)
	// Not aborted, it would run its 30 s.
	if r.elapsed >= 30*time.Second {
		t.Errorf("abortOnFail run took %v of its 30s", r.elapsed)
	}
}

func TestRunTestAbortExits108AndRunsTeardown(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"script.js": `import { test } from 'omnik/execution';
import { sleep } from 'omnik';
export const options = { vus: 1, duration: '30s' };
export function teardown() { console.log('TEARDOWN_MARKER'); }
export default function () { sleep(0.1); test.abort('enough'); console.log('AFTER_ABORT'); }
`})
	r := runOmnik(t, dir, nil, "run", "-q", "script.js")
	expect{code: 108, stdout: []string{"METRICS"}, stderr: []string{"TEARDOWN_MARKER"}, notStderr: []string{"AFTER_ABORT"}}.check(t, r)
	if r.elapsed >= 30*time.Second {
		t.Errorf("aborted run took %v of its 30s", r.elapsed)
	}
}

// The reason given to test.abort(), test.fail() or an abortOnFail threshold is the only
// explanation of an exit 108, 110 or early 99; the user must see it.
func TestRunPrintsWhyTheRunStopped(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, options, body, reason string }{
		{"test.abort", "{ vus: 1, duration: '5s' }", "test.abort('enough');", "enough"},
		{"test.fail", "{ iterations: 2 }", "test.fail('not good');", "not good"},
		{"abortOnFail", "{ vus: 1, duration: '5s', thresholds: { my_trend: [{ threshold: 'p(99) < 10', abortOnFail: true }] } }",
			"t.add(50); sleep(0.05);", "p(99) < 10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeFiles(t, map[string]string{"script.js": `import { test } from 'omnik/execution';
import { Trend } from 'omnik/metrics';
import { sleep } from 'omnik';
const t = new Trend('my_trend');
export const options = ` + tt.options + `;
export default function () { ` + tt.body + ` }
`})
			r := runOmnik(t, dir, nil, "run", "-q", "script.js")
			if !strings.Contains(r.stderr, tt.reason) {
				t.Errorf("stderr does not give the reason %q:\n%s", tt.reason, r)
			}
		})
	}
}

func TestRunIterationExceptionDoesNotStopTheRun(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"script.js": `export const options = { iterations: 3 };
export default function () { throw new Error('iter boom'); }
`})
	r := runOmnik(t, dir, nil, "run", "-q", "-v", "script.js")
	expect{code: 0, stdout: []string{"iterations..........: 3 "}, stderr: []string{"iter boom", "script.js:2:"}}.check(t, r)
}

// An exception in every iteration must not pass silently: k6 logs each at error level.
func TestRunReportsIterationExceptionsWithoutVerbose(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"script.js": `export const options = { iterations: 3 };
export default function () { throw new Error('iter boom'); }
`})
	r := runOmnik(t, dir, nil, "run", "-q", "script.js")
	expect{code: 0, stderr: []string{"iter boom", "script.js:2:"}}.check(t, r)
}

// docs/cli.md: invalid values stop the run before anything starts.
func TestRunRejectsBadSummaryTrendStatsBeforeRunning(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"script.js": `export const options = { vus: 1, duration: '30s' };
export function teardown() { console.log('TEARDOWN_RAN'); }
export default function () {}
`})
	r := runOmnik(t, dir, []string{"OMNIK_SUMMARY_TREND_STATS=avg,p(abc)"}, "run", "-q", "script.js")
	expect{code: 104, stderr: []string{`"p(abc)"`}, notStderr: []string{"TEARDOWN_RAN", "summaryTrendStats: summaryTrendStats"}}.check(t, r)
	if r.elapsed >= 30*time.Second {
		t.Errorf("the invalid run took %v: it ran its 30s before failing", r.elapsed)
	}
}

func TestRunSummaryTrendStatsAndTimeUnitFromEnvironment(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"script.js": passingScript})
	r := runOmnik(t, dir, []string{"OMNIK_SUMMARY_TREND_STATS=avg,p(99.9)", "OMNIK_SUMMARY_TIME_UNIT=s"}, "run", "-q", "script.js")
	expect{code: 0, stdout: []string{"my_trend............: avg=5 p(99.9)=5\n"}}.check(t, r)
	// The stats and the unit, not the durations: a loaded machine takes 10 ms sometimes.
	if !regexp.MustCompile(`iteration_duration\.\.: avg=\d+\.\d\ds p\(99\.9\)=\d+\.\d\ds\n`).MatchString(r.stdout) {
		t.Errorf("iteration_duration not as avg and p(99.9) in seconds:\n%s", r.stdout)
	}
}

// With no summary to show them, crossed thresholds are still named on stderr: exit 99
// is never silent.
func TestNoSummaryStillNamesTheCrossedThresholds(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"script.js": `import { Trend } from 'omnik/metrics';
const t = new Trend('my_trend');
export const options = { iterations: 1, thresholds: { my_trend: ['p(99) < 10', 'avg < 100'], 'my_trend{x:y}': ['max < 1'] } };
export default function () { t.add(50); }
`})
	r := runOmnik(t, dir, nil, "run", "-q", "--no-summary", "script.js")
	expect{code: 99,
		stderr:    []string{"thresholds on metrics 'my_trend', 'my_trend{x:y}' have been crossed", "my_trend: p(99) < 10 (observed 50)", "my_trend{x:y}: max < 1 (observed no data)"},
		notStderr: []string{"avg < 100"},
	}.check(t, r)
	if strings.TrimSpace(r.stdout) != "" {
		t.Errorf("--no-summary printed:\n%s", r.stdout)
	}
}
